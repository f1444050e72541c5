namespace EtwSerializerProfiler.Cli.Terminal;

/// <summary>The process's own stdout and stderr: what `esp` uses.</summary>
public sealed class SystemConsole : IConsole
{
    public TextWriter Out => Console.Out;
    public TextWriter Error => Console.Error;

    public IProgressDisplay StartProgress(bool live) => (live ? LiveProgress.TryStart(Console.Error) : null) ?? (IProgressDisplay)new LineProgress(Console.Error);
}
