using System.Diagnostics;

namespace EtwSerializerProfiler.Tests.Support;

/// <summary>Runs a real process (the benchmark or the esp tool) and captures what a user would see.</summary>
public static class ProcessRunner
{
    public sealed record Result(int ExitCode, string StdOut, string StdErr)
    {
        /// <summary>StdOut with the lines wrapped for a 120-column terminal joined again (a continuation starts with two spaces).</summary>
        public string Unwrapped => StdOut.ReplaceLineEndings("\n").Replace("\n  ", " ", StringComparison.Ordinal);
    }

    public static Result Dotnet(string dll, params string[] args) => Run("dotnet", [dll, .. args]);

    public static Result Run(string file, IReadOnlyList<string> args, TimeSpan? timeout = null, string? workingDirectory = null, IReadOnlyDictionary<string, string>? environment = null)
    {
        FastRun.RefuseSlowWork($"starting {file}");
        var psi = new ProcessStartInfo(file) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var a in args) psi.ArgumentList.Add(a);
        if (workingDirectory is not null) psi.WorkingDirectory = workingDirectory;
        foreach (var (name, value) in environment ?? new Dictionary<string, string>()) psi.Environment[name] = value;
        using var p = Process.Start(psi)!;
        var stdout = p.StandardOutput.ReadToEndAsync();
        var stderr = p.StandardError.ReadToEndAsync();
        if (!p.WaitForExit(timeout ?? TimeSpan.FromMinutes(3)))
        {
            p.Kill(entireProcessTree: true);
            throw new TimeoutException($"{file} {string.Join(' ', args)} did not finish");
        }
        return new Result(p.ExitCode, stdout.Result, stderr.Result);
    }
}
