using System.Diagnostics;
using System.Reflection;

namespace EtwSerializerProfiler.Analyzer.Input;

/// <summary>
/// Tells a reading library's complaint about its input from a bug of ours. TraceEvent and ClrMD report damaged bytes
/// with whatever exception their parsing hits (FormatException, a bare Exception "Read past end of stream",
/// IndexOutOfRangeException, OverflowException...), so the type says little; where it was thrown says it all. An
/// exception whose innermost frame outside the .NET libraries is in the reader came from the bytes it was reading;
/// one thrown by our own code (an event handler of the analysis pass) is a bug, and is not blamed on the input.
/// <para>
/// One exception to "where": TraceEvent's payload getters are small and the JIT inlines them into our handlers, so
/// their bare <c>Exception("Reading past end of event")</c> on a damaged payload can surface with our handler as the
/// innermost frame. Our code never throws a bare <see cref="Exception"/> (CA2201 is an error in .editorconfig), so
/// that exact type is the reader's wherever it seems to come from.
/// </para>
/// </summary>
internal static class ReaderFault
{
    /// <summary>TraceEvent and the FastSerialization library it reads .etlx and .nettrace framing with.</summary>
    public static readonly IReadOnlySet<string> TraceEvent = new HashSet<string>(StringComparer.Ordinal)
    {
        "Microsoft.Diagnostics.Tracing.TraceEvent",
        "Microsoft.Diagnostics.FastSerialization",
    };

    /// <summary>ClrMD, which reads heap snapshots.</summary>
    public static readonly IReadOnlySet<string> ClrMD = new HashSet<string>(StringComparer.Ordinal) { "Microsoft.Diagnostics.Runtime" };

    /// <remarks>
    /// Frames are read through <see cref="DiagnosticMethodInfo"/> (the stack trace's own data), which the native esp
    /// answers as the managed one does; a frame it cannot name is passed over.
    /// </remarks>
    public static bool IsFrom(Exception ex, IReadOnlySet<string> readerAssemblies)
    {
        ArgumentNullException.ThrowIfNull(ex);
        ArgumentNullException.ThrowIfNull(readerAssemblies);
        if (ex.GetType() == typeof(Exception)) return true;
        foreach (var frame in new StackTrace(ex, fNeedFileInfo: false).GetFrames())
        {
            var name = DiagnosticMethodInfo.Create(frame)?.DeclaringAssemblyName is { } assembly ? assembly.Split(',')[0] : null;
            if (name is null || IsDotNetLibrary(name)) continue;
            return readerAssemblies.Contains(name);
        }
        return false;
    }

    /// <summary>One line for the user: the reader's exception type matters to a bug report, its stack does not.</summary>
    public static string Describe(Exception ex) => $"{ex.GetType().Name}: {ex.Message}";

    private static bool IsDotNetLibrary(string name) =>
        name == "System.Private.CoreLib" || name == "netstandard" || name.StartsWith("System.", StringComparison.Ordinal);
}
