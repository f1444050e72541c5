using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Robustness;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Cli;

/// <summary>--symbols mistakes: one line naming what is wrong, the documented exit code, before any analysis.</summary>
public sealed class SymbolsOptionTests : IDisposable
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(60);
    private static string KernelZip => Repo.Golden("kernel-session.zip");
    private readonly string _dir = Repo.NewTempDir("symopt");

    public void Dispose() => Directory.Delete(_dir, recursive: true);

    [Fact]
    public void A_missing_symbol_folder_is_a_usage_error()
    {
        var missing = Path.Combine(_dir, "nope");
        var outcome = InProcessEsp.Run(Bound, "analyze", KernelZip, "--symbols", missing);
        Assert.Equal(ExitCodes.Usage, outcome.ExitCode);
        Assert.Contains($"--symbols {missing}: no such folder", outcome.StdErr, StringComparison.Ordinal);
    }

    [Fact]
    public void A_trace_without_perf_data_is_bad_input_naming_the_missing_file()
    {
        // The golden zips, like any zip, carry the perf text but not kernel.perf.data.
        var outcome = InProcessEsp.Run(Bound, "analyze", KernelZip, "--symbols", _dir);
        Assert.Equal(ExitCodes.BadInput, outcome.ExitCode);
        var line = Assert.Single(outcome.ErrorLines);
        Assert.Contains($"no {TraceFolderLayout.KernelData} beside the trace", line, StringComparison.Ordinal);
    }

    [Fact]
    public void Symbols_with_no_kernel_is_a_usage_error()
    {
        var outcome = InProcessEsp.Run(Bound, "analyze", KernelZip, "--symbols", _dir, "--no-kernel");
        Assert.Equal(ExitCodes.Usage, outcome.ExitCode);
        Assert.Contains("--no-kernel", Assert.Single(outcome.ErrorLines), StringComparison.Ordinal);
    }

    [Fact]
    public void Record_takes_symbols_only_for_its_analysis()
    {
        var ex = Assert.Throws<UsageException>(() => EtwSerializerProfiler.Cli.Commands.RecordVerb.Parse(["--symbols", _dir]));
        Assert.Contains("add --analyze", ex.Message, StringComparison.Ordinal);
        Assert.Equal([_dir], EtwSerializerProfiler.Cli.Commands.RecordVerb.Parse(["--analyze", "--symbols", _dir]).SymbolFolders);
    }
}
