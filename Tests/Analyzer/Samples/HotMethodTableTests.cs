using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Samples;
using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Tests.Analyzer.Samples;

/// <summary>Hot methods added per distinct stack and read once: the same sums as sample by sample, on hand-made stacks.</summary>
public sealed class HotMethodTableTests
{
    private static readonly StackFrame Read = new("Ser.dll", "Ser.Reader.Read()");
    private static readonly StackFrame Value = new("Ser.dll", "Ser.Reader.Value()");
    private static readonly StackFrame Run = new("Bench.dll", "X.Run()");

    [Fact]
    public void Recursion_counts_once_per_sample_and_exclusive_time_goes_to_the_leaf()
    {
        var table = new HotMethodTable(new MethodNames());
        StackFrame[] recursive = [Value, Read, Value, Read, Run];
        StackFrame[] flat = [Read, Run];
        table.Add(recursive, 1.0, leafIsGcPoll: false);
        table.Add(flat, 2.0, leafIsGcPoll: false);
        table.Add(recursive, 0.5, leafIsGcPoll: false);
        var total = Totals(table);
        Assert.Equal((1.5, 1.5), total["Ser!Ser.Reader.Value"]);
        Assert.Equal((2.0, 3.5), total["Ser!Ser.Reader.Read"]);
        Assert.Equal((0.0, 3.5), total["Bench!X.Run"]);
        // Read again after more samples: only what is new is added.
        table.Add(flat, 1.0, leafIsGcPoll: false);
        var sums = new HotMethodSums();
        table.AddTo(sums);
        var again = sums.Rows();
        Assert.Equal((3.0, 4.5), (again["Ser!Ser.Reader.Read"].ExclusiveMs, again["Ser!Ser.Reader.Read"].InclusiveMs));
        Assert.Equal(["Ser!Ser.Reader.Value", "Ser!Ser.Reader.Read", "Bench!X.Run"], again.Keys);
    }

    [Fact]
    public void A_stack_of_zero_weight_still_has_its_rows()
    {
        var table = new HotMethodTable(new MethodNames());
        table.Add([Read, Run], 0.0, leafIsGcPoll: false);
        var total = Totals(table);
        Assert.Equal((0.0, 0.0), total["Ser!Ser.Reader.Read"]);
        Assert.Equal(2, total.Count);
    }

    private static readonly StackFrame Runtime = new("libcoreclr.so", StackFrame.Unresolved);
    private static readonly StackFrame Stub = new("?", StackFrame.Unresolved);

    [Fact]
    public void Callers_of_unnamed_code_are_children_of_its_row_and_never_add_to_the_exclusive_sum()
    {
        // 10 ms in all: 4 in the stripped runtime called from Read (one of them while the JIT ran), 2 called from Value,
        // 1 in the runtime with no managed caller, 1 in a stub, 2 in Read itself.
        var table = new HotMethodTable(new MethodNames());
        table.Add([Runtime, Runtime, Read, Run], 3.0, leafIsGcPoll: false);
        table.Add([Runtime, Read, Run], 1.0, leafIsGcPoll: false, NativeWork.Jit);
        table.Add([Runtime, Value, Read, Run], 2.0, leafIsGcPoll: false);
        table.Add([Runtime], 1.0, leafIsGcPoll: false);
        table.Add([Stub, Read, Run, Stub], 1.0, leafIsGcPoll: false);
        table.Add([Read, Run], 2.0, leafIsGcPoll: false);
        var sums = new HotMethodSums();
        table.AddTo(sums);
        var rows = sums.Rows();

        // Each sample is exclusive in one row only: the rows add up to the weights added, the callers add nothing.
        Assert.Equal(10.0, rows.Values.Sum(r => r.ExclusiveMs), 9);
        Assert.DoesNotContain(rows.Keys, k => k.Contains("called from", StringComparison.Ordinal));
        var runtime = rows["libcoreclr!?"];
        Assert.Equal((7.0, 7.0), (runtime.ExclusiveMs, runtime.InclusiveMs)); // the runtime twice on one stack counts once
        Assert.Equal(
            [new HotMethodCaller("native", "Ser!Ser.Reader.Read", 3.0), new HotMethodCaller("native", "Ser!Ser.Reader.Value", 2.0), new HotMethodCaller("JIT", "Ser!Ser.Reader.Read", 1.0)],
            runtime.CalledFrom);
        // The children are a breakdown of the row: at most its exclusive time (the sample without a caller is in no child).
        Assert.Equal(6.0, runtime.CalledFrom.Sum(c => c.ExclusiveMs), 9);
        // A stub in anonymous memory is a leaf of its own ("?!?"), split by caller too; rootward "?!?" is no row.
        Assert.Equal((1.0, 1.0), (rows["?!?"].ExclusiveMs, rows["?!?"].InclusiveMs));
        Assert.Equal([new HotMethodCaller("native", "Ser!Ser.Reader.Read", 1.0)], rows["?!?"].CalledFrom);
        Assert.Equal((2.0, 9.0), (rows["Ser!Ser.Reader.Read"].ExclusiveMs, rows["Ser!Ser.Reader.Read"].InclusiveMs));
        Assert.Empty(rows["Ser!Ser.Reader.Read"].CalledFrom);
        Assert.Equal(9.0, rows["Bench!X.Run"].InclusiveMs, 9);
    }

    private static Dictionary<string, (double, double)> Totals(HotMethodTable table)
    {
        var sums = new HotMethodSums();
        table.AddTo(sums);
        return sums.Rows().ToDictionary(r => r.Key, r => (r.Value.ExclusiveMs, r.Value.InclusiveMs));
    }
}
