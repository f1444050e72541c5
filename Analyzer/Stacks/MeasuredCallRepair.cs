using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Analyzer.Stacks;

/// <summary>
/// perf walks stacks by frame pointer, and managed code is not always compiled with one: a method without a frame
/// hides its caller (the return address into the caller is on the stack but not on the chain). The serializer's
/// own Serialize/Deserialize frame, which the stack tags key on, is the most common victim (it calls straight into
/// a frameless library entry such as System.Text.Json's DeserializeAsObject). It can be restored exactly: the
/// benchmark's measured call (BenchmarkRunner.DeserializeRun) has one callee, the run's serializer's method, so a
/// stack that holds the measured frame but not that method gets it back, just above the measured frame.
/// EventPipe and ETW stacks come from unwinders that read unwind info and need no repair.
/// </summary>
internal sealed class MeasuredCallRepair(StackTagFile? tags)
{
    private readonly Dictionary<(string Serializer, string Operation), StackFrame?> _wrappers = [];

    /// <summary>Inserts the run's serializer frame into <paramref name="framesLeafFirst"/> where it was lost; returns whether it did.</summary>
    public bool Repair(List<StackFrame> framesLeafFirst, string serializer, string operation) =>
        Repair(framesLeafFirst, serializer, operation, framesLeafFirst.FindIndex(MeasuredCalls.Is));

    /// <param name="measured">Where the measured call's frame is (leaf first), or -1: a caller that repairs one stack for many runs finds it once.</param>
    public bool Repair(List<StackFrame> framesLeafFirst, string serializer, string operation, int measured)
    {
        if (measured < 0 || Wrapper(serializer, operation) is not { } wrapper) return false;
        var prefix = wrapper.Method;
        for (var i = 0; i < measured; i++)
            if (framesLeafFirst[i].Method.StartsWith(prefix, StringComparison.Ordinal)) return false;
        framesLeafFirst.Insert(measured, wrapper);
        return true;
    }

    /// <summary>The serializer's own frame, spelled as TraceLog spells it, from the tag that names it ("Deserialize\X").</summary>
    private StackFrame? Wrapper(string serializer, string operation)
    {
        if (_wrappers.TryGetValue((serializer, operation), out var frame)) return frame;
        frame = null;
        var path = (operation == "serialize" ? "Serialize" : "Deserialize") + "\\" + serializer;
        var rule = tags?.Rules.FirstOrDefault(r => r.TagPath == path && r.MethodPattern.EndsWith('*') && r.MethodPattern.Contains("::", StringComparison.Ordinal));
        if (rule is not null && operation is "serialize" or "deserialize")
        {
            var method = rule.MethodPattern.TrimEnd('*').Replace("::", ".", StringComparison.Ordinal);
            var module = rule.ModulePattern.Replace("*", "dll", StringComparison.Ordinal);
            frame = new StackFrame(module, method);
        }
        _wrappers[(serializer, operation)] = frame;
        return frame;
    }
}
