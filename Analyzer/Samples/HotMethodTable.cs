using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Analyzer.Samples;

/// <summary>
/// Exclusive and inclusive time per method ("Module!Type.Method"), from the same weights the tables add up. A GC-poll
/// helper leaf (where a safe-point sampler stopped the thread) gives its exclusive time to the method that polled; the
/// unwinder's end of the chain ("?!?") is no method; recursion counts once per sample. Time in code without a name
/// (the stripped native runtime: `libcoreclr!?`) is also listed by the managed method that called into it
/// ("libcoreclr!? (native, called from X.Y)"), so the bucket a user cannot act on says whose call it was; where the
/// trace's events say what the runtime was doing, the row says that instead of "native" ("JIT, called from X.Y").
/// </summary>
internal sealed class HotMethodTable(Dictionary<StackFrame, string> displayNames)
{
    private readonly Dictionary<string, (double Exclusive, double Inclusive)> _methods = new(StringComparer.Ordinal);
    private readonly HashSet<string> _seen = new(StringComparer.Ordinal);

    /// <param name="why">What the trace's events say the unnamed leaf was doing: the caller row is named by it ("JIT, called from X.Y").</param>
    public void Add(StackFrame[] framesLeafFirst, double weight, bool leafIsGcPoll, NativeWork why = NativeWork.None)
    {
        var leaf = 0;
        if (leafIsGcPoll)
            while (leaf < framesLeafFirst.Length - 1 && framesLeafFirst[leaf].IsGcPoll) leaf++;
        _seen.Clear();
        if (framesLeafFirst.Length > 0 && framesLeafFirst[leaf].Method == StackFrame.Unresolved && CallerOf(framesLeafFirst, leaf) is { } caller)
            Add($"{Display(framesLeafFirst[leaf])} ({Said(why)}, called from {Display(caller)})", weight, weight);
        for (var i = leaf; i < framesLeafFirst.Length; i++)
        {
            if (framesLeafFirst[i] is { Module: "?", Method: StackFrame.Unresolved }) continue;
            var name = Display(framesLeafFirst[i]);
            if (!_seen.Add(name)) continue;
            Add(name, i == leaf ? weight : 0, weight);
        }
    }

    private static string Said(NativeWork why) => why switch
    {
        NativeWork.GcPause => "GC",
        NativeWork.Jit => "JIT",
        NativeWork.TypeLoad => "type loading",
        NativeWork.Stub => "stub",
        _ => "native",
    };

    private void Add(string name, double exclusive, double inclusive)
    {
        var (ex, inc) = _methods.GetValueOrDefault(name);
        _methods[name] = (ex + exclusive, inc + inclusive);
    }

    /// <summary>The innermost named frame of managed code rootward of the leaf: the method that called into the runtime.</summary>
    private static StackFrame? CallerOf(StackFrame[] frames, int leaf)
    {
        for (var i = leaf + 1; i < frames.Length; i++)
        {
            var f = frames[i];
            if (f.Method == StackFrame.Unresolved || IsNative(f.Module)) continue;
            return f;
        }
        return null;
    }

    /// <summary>Native modules as the frame namers spell them: shared objects, the kernel, code perf could not place.</summary>
    private static bool IsNative(string module) =>
        module.EndsWith(".so", StringComparison.Ordinal) || module.Contains(".so.", StringComparison.Ordinal)
        || module is "kernel" or "?" or "jitted-code"
        || module.Equals("coreclr.dll", StringComparison.OrdinalIgnoreCase) || module.Equals("clrjit.dll", StringComparison.OrdinalIgnoreCase);

    public void AddTo(Dictionary<string, (double Exclusive, double Inclusive)> total)
    {
        foreach (var (name, (ex, inc)) in _methods)
        {
            var (e, i) = total.GetValueOrDefault(name);
            total[name] = (e + ex, i + inc);
        }
    }

    /// <summary>Names are made once per frame, not once per sample: the same frames recur in every sample.</summary>
    private string Display(StackFrame f)
    {
        if (displayNames.TryGetValue(f, out var name)) return name;
        return displayNames[f] = f.Display;
    }
}
