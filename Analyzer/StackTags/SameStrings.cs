using System.Runtime.CompilerServices;

namespace EtwSerializerProfiler.Analyzer.StackTags;

/// <summary>
/// Frames as the same string instances: hashed by identity, not content. The frame namers (<c>StackResolver</c>,
/// <c>KernelFrameNamer</c>) make one <see cref="StackFrame"/> per code address and hand it out again, so a cache of
/// something computed from a frame's names can be keyed by the instances and skip hashing a 100-character signature
/// on every sample (string hashing was about a tenth of cold analysis: docs/analyzer.md#speed). Equal names in other
/// instances are only another key for the same answer, so such a cache must hold a pure function of the names.
/// </summary>
internal sealed class SameStrings : IEqualityComparer<(string Module, string Method)>, IEqualityComparer<StackFrame>
{
    public static SameStrings Instance { get; } = new();

    public bool Equals((string Module, string Method) x, (string Module, string Method) y) =>
        ReferenceEquals(x.Module, y.Module) && ReferenceEquals(x.Method, y.Method);

    public int GetHashCode((string Module, string Method) key) =>
        HashCode.Combine(RuntimeHelpers.GetHashCode(key.Module), RuntimeHelpers.GetHashCode(key.Method));

    public bool Equals(StackFrame x, StackFrame y) => Equals((x.Module, x.Method), (y.Module, y.Method));

    public int GetHashCode(StackFrame frame) => GetHashCode((frame.Module, frame.Method));
}
