using EtwSerializerProfiler.Cli.Terminal;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Cli;

/// <summary>Turns the exceptions a user can cause into one line and an exit code, never a stack dump.</summary>
public static class CommandRunner
{
    /// <summary>Set to 1 to print the stack of an internal error (a bug report needs it; users do not).</summary>
    public const string StackTraceVariable = "ESP_STACKTRACE";

    /// <param name="verb">The command as typed ("analyze", "stacktags check"): errors start with "esp {verb}: ".</param>
    public static async Task<int> RunAsync(string verb, IConsole console, Func<Task<int>> run, CancellationToken cancel)
    {
        try
        {
            return await run().ConfigureAwait(false);
        }
        catch (UsageException ex)
        {
            console.Error.WriteLine($"esp {verb}: {OneLine(ex.Message)}");
            return ExitCodes.Usage;
        }
        catch (BadInputException ex)
        {
            console.Error.WriteLine($"esp {verb}: {OneLine(ex.Message)}");
            return ExitCodes.BadInput;
        }
        catch (DiskFullException ex)
        {
            console.Error.WriteLine($"esp {verb}: {OneLine(ex.Message)}");
            return ExitCodes.DiskFull;
        }
        catch (OperationCanceledException) when (cancel.IsCancellationRequested)
        {
            console.Error.WriteLine($"esp {verb}: interrupted");
            return ExitCodes.Interrupted;
        }
        catch (Exception ex)
        {
            // Whatever the input, a user sees one line and a documented code; the damaged-input tests fail on this
            // code, so it marks a bug to fix (an input problem that is not yet turned into BadInputException).
            console.Error.WriteLine($"esp {verb}: internal error: {ex.GetType().Name}: {OneLine(ex.Message)} (a bug in esp; {StackTraceVariable}=1 prints where)");
            if (Environment.GetEnvironmentVariable(StackTraceVariable) == "1") console.Error.WriteLine(ex);
            return ExitCodes.InternalError;
        }
    }

    /// <summary>Messages can quote input (a zip entry's name, a reader's complaint): an error stays one line.</summary>
    public static string OneLine(string message) => message.ReplaceLineEndings(" ").Trim();
}
