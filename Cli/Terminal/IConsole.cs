using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Cli.Terminal;

/// <summary>
/// Where a verb writes, as dotnet-diagnostics' IConsole: the report to <see cref="Out"/>, errors and progress to
/// <see cref="Error"/>. Verbs never touch System.Console, so tests run them in-process on a captured console.
/// </summary>
public interface IConsole
{
    TextWriter Out { get; }
    TextWriter Error { get; }

    /// <summary>Progress of a long step, on <see cref="Error"/>: plain lines, or a live display where that is possible.</summary>
    /// <param name="live">The caller owns the terminal until the display is disposed: nothing else (no child process,
    /// no report on <see cref="Out"/>) writes to it meanwhile. False keeps plain lines.</param>
    IProgressDisplay StartProgress(bool live);

    /// <summary>The columns help wraps within: the reports' 120, or a narrower terminal's.</summary>
    int Width => PlainText.Width;
}

/// <summary>Progress messages until disposed. Lines indented by two spaces update the step above them ("  45% ...").</summary>
public interface IProgressDisplay : IProgress<string>, IDisposable;
