using Spectre.Console;

namespace EtwSerializerProfiler.Cli.Terminal;

/// <summary>
/// Progress on a terminal (Spectre.Console): each step's line stays, as in the plain output, and below it a spinner
/// with the current step, its latest update ("  45% ...", "  recording: 12 MB") and the time it has taken, redrawn in
/// place and cleared at the end. Only when stderr is an interactive terminal; everything else gets <see cref="LineProgress"/>.
/// </summary>
public sealed class LiveProgress : IProgressDisplay
{
    private readonly IAnsiConsole _console;
    private readonly TaskCompletionSource _finished = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TaskCompletionSource<ProgressTask> _started = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly Task _display;
    private readonly Lock _gate = new();
    private string _step = "";

    private LiveProgress(IAnsiConsole console)
    {
        _console = console;
        _display = console.Progress()
            .AutoClear(true)
            .Columns(new SpinnerColumn(), new TaskDescriptionColumn { Alignment = Justify.Left }, new ElapsedTimeColumn())
            .StartAsync(async context =>
            {
                var task = context.AddTask("", maxValue: 1);
                task.IsIndeterminate = true;
                _started.TrySetResult(task);
                await _finished.Task.ConfigureAwait(false);
            });
    }

    /// <summary>A live display on stderr, or null when stderr is redirected or not an interactive, ANSI-capable terminal.</summary>
    public static LiveProgress? TryStart(TextWriter error)
    {
        if (Console.IsErrorRedirected) return null;
        var console = AnsiConsole.Create(new AnsiConsoleSettings { Out = new AnsiConsoleOutput(error) });
        return console.Profile.Capabilities is { Ansi: true, Interactive: true } ? new LiveProgress(console) : null;
    }

    public void Report(string value)
    {
        var update = value.StartsWith("  ", StringComparison.Ordinal);
        lock (_gate)
        {
            // Steps stay on screen (above the display); their updates only replace the display's text.
            if (!update)
            {
                _console.WriteLine(value);
                _step = value;
            }
            var text = update ? $"{_step} {value.Trim()}" : value;
            if (_started.Task.IsCompletedSuccessfully) _started.Task.Result.Description = Markup.Escape(text);
        }
    }

    public void Dispose()
    {
        _finished.TrySetResult();
        _display.GetAwaiter().GetResult();
    }
}
