using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Cli;

/// <summary>Turns the exceptions a user can cause into one line and an exit code, never a stack dump.</summary>
public static class CommandRunner
{
    /// <summary>Set to 1 to print the stack of an internal error (a bug report needs it; users do not).</summary>
    public const string StackTraceVariable = "ESP_STACKTRACE";

    public static async Task<int> RunAsync(ICommand command, IReadOnlyList<string> args, CancellationToken cancel)
    {
        try
        {
            return await command.RunAsync(args, cancel).ConfigureAwait(false);
        }
        catch (UsageException ex)
        {
            Console.Error.WriteLine($"esp {command.Name}: {OneLine(ex.Message)}");
            return ExitCodes.Usage;
        }
        catch (BadInputException ex)
        {
            Console.Error.WriteLine($"esp {command.Name}: {OneLine(ex.Message)}");
            return ExitCodes.BadInput;
        }
        catch (OperationCanceledException) when (cancel.IsCancellationRequested)
        {
            Console.Error.WriteLine($"esp {command.Name}: interrupted");
            return ExitCodes.Interrupted;
        }
        catch (Exception ex)
        {
            // Whatever the input, a user sees one line and a documented code; the damaged-input tests fail on this
            // code, so it marks a bug to fix (an input problem that is not yet turned into BadInputException).
            Console.Error.WriteLine($"esp {command.Name}: internal error: {ex.GetType().Name}: {OneLine(ex.Message)} (a bug in esp; {StackTraceVariable}=1 prints where)");
            if (Environment.GetEnvironmentVariable(StackTraceVariable) == "1") Console.Error.WriteLine(ex);
            return ExitCodes.InternalError;
        }
    }

    public static IProgress<string> StderrProgress { get; } = new SyncProgress(m => Console.Error.WriteLine(m));

    /// <summary>Messages can quote input (a zip entry's name, a reader's complaint): an error stays one line.</summary>
    private static string OneLine(string message) => message.ReplaceLineEndings(" ").Trim();

    /// <summary>Progress&lt;T&gt; posts to the thread pool and can reorder lines; this one writes at once.</summary>
    private sealed class SyncProgress(Action<string> write) : IProgress<string>
    {
        public void Report(string value) => write(value);
    }
}
