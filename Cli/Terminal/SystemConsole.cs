using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Cli.Terminal;

/// <summary>The process's own stdout and stderr: what `esp` uses.</summary>
public sealed class SystemConsole : IConsole
{
    public TextWriter Out => Console.Out;
    public TextWriter Error => Console.Error;

    // Redirected (a pager, a file, CI) there is no window: it wrote help lines of up to 341 columns.
    public int Width => Console.IsOutputRedirected || Console.WindowWidth <= 0 ? PlainText.Width : Math.Min(Console.WindowWidth, PlainText.Width);

    public IProgressDisplay StartProgress(bool live) => (live ? LiveProgress.TryStart(Console.Error) : null) ?? (IProgressDisplay)new LineProgress(Console.Error);
}
