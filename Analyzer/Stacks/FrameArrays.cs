using System.Runtime.CompilerServices;
using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Analyzer.Stacks;

/// <summary>
/// One frames array per distinct named stack. A sampler's stacks are distinct by address (a timer sample's leaf is
/// whatever instruction ran, so most kernel-session stacks are seen once), but many of them name the same methods in
/// the same order. Handing out one array for those lets every cache keyed by the array's instance (the tag of a
/// stack, <see cref="Samples.SampleCharger"/>) work once per named stack, and keeps one array instead of one per address.
/// Frames compare as <see cref="SameStrings"/> does (by string instance): two frames named alike by different
/// instances stay apart, which costs sharing, never correctness.
/// </summary>
internal sealed class FrameArrays
{
    private readonly Dictionary<StackFrame[], StackFrame[]> _arrays = new(Comparer.Instance);
    private readonly Dictionary<StackFrame[], StackFrame[]>.AlternateLookup<ReadOnlySpan<StackFrame>> _bySpan;

    public FrameArrays() => _bySpan = _arrays.GetAlternateLookup<ReadOnlySpan<StackFrame>>();

    /// <summary>Distinct arrays handed out.</summary>
    public int Count => _arrays.Count;

    /// <summary>The array for these frames: one already handed out for the same names, or a new copy.</summary>
    public StackFrame[] Intern(ReadOnlySpan<StackFrame> frames)
    {
        if (frames.Length == 0) return [];
        if (_bySpan.TryGetValue(frames, out var known)) return known;
        var array = frames.ToArray();
        _arrays[array] = array;
        return array;
    }

    private sealed class Comparer : IEqualityComparer<StackFrame[]>, IAlternateEqualityComparer<ReadOnlySpan<StackFrame>, StackFrame[]>
    {
        public static Comparer Instance { get; } = new();

        public bool Equals(StackFrame[]? x, StackFrame[]? y) => Equals(x.AsSpan(), y!);

        public int GetHashCode(StackFrame[] frames) => GetHashCode(frames.AsSpan());

        public bool Equals(ReadOnlySpan<StackFrame> x, StackFrame[] y)
        {
            if (x.Length != y.Length) return false;
            for (var i = 0; i < x.Length; i++)
                if (!ReferenceEquals(x[i].Module, y[i].Module) || !ReferenceEquals(x[i].Method, y[i].Method)) return false;
            return true;
        }

        public int GetHashCode(ReadOnlySpan<StackFrame> frames)
        {
            var hash = new HashCode();
            foreach (var f in frames)
            {
                hash.Add(RuntimeHelpers.GetHashCode(f.Module));
                hash.Add(RuntimeHelpers.GetHashCode(f.Method));
            }
            return hash.ToHashCode();
        }

        public StackFrame[] Create(ReadOnlySpan<StackFrame> frames) => frames.ToArray();
    }
}
