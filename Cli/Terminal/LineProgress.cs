namespace EtwSerializerProfiler.Cli.Terminal;

/// <summary>
/// Progress as plain lines, written at once (Progress&lt;T&gt; posts to the thread pool and can reorder them). What a
/// script reading stderr, the tests, and a redirected esp get: the same lines as before the live display existed.
/// </summary>
public sealed class LineProgress(TextWriter writer) : IProgressDisplay
{
    public void Report(string value) => writer.WriteLine(value);

    public void Dispose() { }
}
