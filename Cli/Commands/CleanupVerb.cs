using System.CommandLine;
using EtwSerializerProfiler.Cli.Terminal;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Etw;

namespace EtwSerializerProfiler.Cli.Commands;

/// <summary>
/// `esp cleanup`: ETW sessions outlive a killed recorder and keep buffering; this stops every session whose name
/// starts with the tool's prefix. EventPipe sessions need no cleanup: they end with the traced process.
/// </summary>
public static class CleanupVerb
{
    public const string Name = "cleanup";
    public const string OffWindowsMessage = "esp cleanup: nothing to do: no ETW sessions exist off Windows; EventPipe sessions end with their process";

    public static Command Create(IConsole console)
    {
        var command = new Command(Name, $"stop ETW sessions left behind by esp (names starting with {EtwSessionNames.Prefix}; Windows, elevated)")
            .WithArgumentsMessage("cleanup takes no arguments");
        command.SetAction((_, cancel) => CommandRunner.RunAsync(Name, console, () => Task.FromResult(Run(console)), cancel));
        return command;
    }

    public static int Run(IConsole console)
    {
        if (!OperatingSystem.IsWindows())
        {
            console.Out.WriteLine(OffWindowsMessage);
            return ExitCodes.Ok;
        }

        var result = EtwSessionCleanup.StopOurSessions();
        foreach (var name in result.Stopped) console.Out.WriteLine($"stopped {name}");
        foreach (var failure in result.Failed) console.Error.WriteLine($"could not stop {failure} (elevated prompt?)");
        if (result.Stopped.Count == 0 && result.Failed.Count == 0) console.Out.WriteLine($"no ETW sessions named {EtwSessionNames.Prefix}* are running");
        // Shared by every kernel tracer on the machine: reported, never stopped on a guess.
        if (result.KernelLoggerRunning)
            console.Out.WriteLine($"note: \"{EtwSessionNames.NtKernelLogger}\" is running; if the scripts started it, stop it with scripts\\xperf\\stop.cmd or `xperf -stop`");
        return result.Failed.Count == 0 ? ExitCodes.Ok : ExitCodes.Failed;
    }
}
