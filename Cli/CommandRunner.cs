using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Cli;

/// <summary>Turns the exceptions a user can cause into one line and an exit code, never a stack dump.</summary>
public static class CommandRunner
{
    public static async Task<int> RunAsync(ICommand command, IReadOnlyList<string> args, CancellationToken cancel)
    {
        try
        {
            return await command.RunAsync(args, cancel).ConfigureAwait(false);
        }
        catch (UsageException ex)
        {
            Console.Error.WriteLine($"esp {command.Name}: {ex.Message}");
            return ExitCodes.Usage;
        }
        catch (BadInputException ex)
        {
            Console.Error.WriteLine($"esp {command.Name}: {ex.Message}");
            return ExitCodes.BadInput;
        }
        catch (OperationCanceledException) when (cancel.IsCancellationRequested)
        {
            Console.Error.WriteLine($"esp {command.Name}: interrupted");
            return ExitCodes.Interrupted;
        }
    }

    public static IProgress<string> StderrProgress { get; } = new SyncProgress(m => Console.Error.WriteLine(m));

    /// <summary>Progress&lt;T&gt; posts to the thread pool and can reorder lines; this one writes at once.</summary>
    private sealed class SyncProgress(Action<string> write) : IProgress<string>
    {
        public void Report(string value) => write(value);
    }
}
