using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Analyzer.Samples;

/// <summary>
/// Exclusive and inclusive time per method ("Module!Type.Method"), from the same weights the tables add up. A GC-poll
/// helper leaf (where a safe-point sampler stopped the thread) gives its exclusive time to the method that polled; the
/// unwinder's end of the chain ("?!?") is no method; recursion counts once per sample.
/// </summary>
internal sealed class HotMethodTable(Dictionary<StackFrame, string> displayNames)
{
    private readonly Dictionary<string, (double Exclusive, double Inclusive)> _methods = new(StringComparer.Ordinal);
    private readonly HashSet<string> _seen = new(StringComparer.Ordinal);

    public void Add(StackFrame[] framesLeafFirst, double weight, bool leafIsGcPoll)
    {
        var leaf = 0;
        if (leafIsGcPoll)
            while (leaf < framesLeafFirst.Length - 1 && Processing.StackResolver.IsGcPoll(framesLeafFirst[leaf])) leaf++;
        _seen.Clear();
        for (var i = leaf; i < framesLeafFirst.Length; i++)
        {
            if (framesLeafFirst[i] is { Module: "?", Method: Processing.StackResolver.Unresolved }) continue;
            var name = Display(framesLeafFirst[i]);
            if (!_seen.Add(name)) continue;
            var (ex, inc) = _methods.GetValueOrDefault(name);
            _methods[name] = (ex + (i == leaf ? weight : 0), inc + weight);
        }
    }

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
        return displayNames[f] = Processing.StackResolver.Display(f);
    }
}
