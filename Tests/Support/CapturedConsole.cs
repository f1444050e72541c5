using EtwSerializerProfiler.Cli.Terminal;

namespace EtwSerializerProfiler.Tests.Support;

/// <summary>
/// An esp console whose two streams are strings: what a verb printed, read back without starting a process. Progress
/// is plain lines, as when esp's stderr is redirected.
/// </summary>
public sealed class CapturedConsole : IConsole
{
    private readonly StringWriter _out = new();
    private readonly StringWriter _error = new();

    // Synchronized: a verb may report progress from a worker thread while the report is written.
    public TextWriter Out { get; }
    public TextWriter Error { get; }

    public CapturedConsole()
    {
        Out = TextWriter.Synchronized(_out);
        Error = TextWriter.Synchronized(_error);
    }

    public string StdOut => _out.ToString();
    public string StdErr => _error.ToString();

    public IProgressDisplay StartProgress(bool live) => new LineProgress(Error);
}
