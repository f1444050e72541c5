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
        var total = new Dictionary<string, (double Exclusive, double Inclusive)>();
        table.AddTo(total);
        Assert.Equal((1.5, 1.5), total["Ser!Ser.Reader.Value"]);
        Assert.Equal((2.0, 3.5), total["Ser!Ser.Reader.Read"]);
        Assert.Equal((0.0, 3.5), total["Bench!X.Run"]);
        // Read again after more samples: only what is new is added.
        table.Add(flat, 1.0, leafIsGcPoll: false);
        var again = new Dictionary<string, (double Exclusive, double Inclusive)>();
        table.AddTo(again);
        Assert.Equal((3.0, 4.5), again["Ser!Ser.Reader.Read"]);
        Assert.Equal(["Ser!Ser.Reader.Value", "Ser!Ser.Reader.Read", "Bench!X.Run"], again.Keys);
    }

    [Fact]
    public void A_stack_of_zero_weight_still_has_its_rows()
    {
        var table = new HotMethodTable(new MethodNames());
        table.Add([Read, Run], 0.0, leafIsGcPoll: false);
        var total = new Dictionary<string, (double Exclusive, double Inclusive)>();
        table.AddTo(total);
        Assert.Equal((0.0, 0.0), total["Ser!Ser.Reader.Read"]);
        Assert.Equal(2, total.Count);
    }
}
