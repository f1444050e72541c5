using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Etw;

namespace EtwSerializerProfiler.Cli.Commands;

/// <summary>
/// `esp cleanup`: ETW sessions outlive a killed recorder and keep buffering; this stops every session whose name
/// starts with the tool's prefix. EventPipe sessions need no cleanup: they end with the traced process.
/// </summary>
public sealed class CleanupVerb : ICommand
{
    public const string OffWindowsMessage = "esp cleanup: nothing to do: no ETW sessions exist off Windows; EventPipe sessions end with their process";

    public string Name => "cleanup";
    public string Summary => $"stop ETW sessions left behind by esp (names starting with {EtwSessionNames.Prefix}; Windows)";

    public Task<int> RunAsync(IReadOnlyList<string> args, CancellationToken cancel)
    {
        var r = new ArgReader(args, new HashSet<string>(StringComparer.OrdinalIgnoreCase) { "help", "h" });
        if (r.Flag("help") || r.Flag("h")) { Console.WriteLine($"esp cleanup      stop every ETW session named {EtwSessionNames.Prefix}* (run elevated)"); return Task.FromResult(ExitCodes.Ok); }
        r.RejectUnknown("cleanup");
        if (r.Positional.Count > 0) throw new UsageException("cleanup takes no arguments");
        if (!OperatingSystem.IsWindows())
        {
            Console.WriteLine(OffWindowsMessage);
            return Task.FromResult(ExitCodes.Ok);
        }

        var result = EtwSessionCleanup.StopOurSessions();
        foreach (var name in result.Stopped) Console.WriteLine($"stopped {name}");
        foreach (var failure in result.Failed) Console.Error.WriteLine($"could not stop {failure} (elevated prompt?)");
        if (result.Stopped.Count == 0 && result.Failed.Count == 0) Console.WriteLine($"no ETW sessions named {EtwSessionNames.Prefix}* are running");
        // Shared by every kernel tracer on the machine: reported, never stopped on a guess.
        if (result.KernelLoggerRunning)
            Console.WriteLine($"note: \"{EtwSessionNames.NtKernelLogger}\" is running; if the scripts started it, stop it with scripts\\xperf\\stop.cmd or `xperf -stop`");
        return Task.FromResult(result.Failed.Count == 0 ? ExitCodes.Ok : ExitCodes.Failed);
    }
}
