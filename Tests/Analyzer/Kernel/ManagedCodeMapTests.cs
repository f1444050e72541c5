using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Tests.Support;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace EtwSerializerProfiler.Tests.Analyzer.Kernel;

/// <summary>
/// The code map reads each method's names in place from the event's payload. On a golden recording, every method
/// load and rundown event must give the name TraceEvent's own getters give.
/// </summary>
public sealed class ManagedCodeMapTests
{
    [Fact]
    public void A_name_read_in_place_is_the_name_TraceEvent_reads()
    {
        var trace = Repo.GoldenTrace("kernel-session", Repo.NewTempDir("codemap"));
        int loads = 0, rundowns = 0;
        var differing = new List<string>();
        void Check(MethodLoadUnloadVerboseTraceData e, ref int count)
        {
            count++;
            var expected = ManagedCodeMap.FullName(e.MethodNamespace, e.MethodName, e.MethodSignature);
            var read = ManagedCodeMap.Builder.NameOf(e);
            if (read != expected) differing.Add($"{read} != {expected}");
        }
        using (var source = new EventPipeEventSource(trace))
        {
            source.Clr.MethodLoadVerbose += e => Check(e, ref loads);
            new ClrRundownTraceEventParser(source).MethodDCStopVerbose += e => Check(e, ref rundowns);
            source.Process();
        }
        Assert.True(loads > 100 && rundowns > 1000, $"{loads} method loads, {rundowns} rundown methods");
        Assert.True(differing.Count == 0, $"{differing.Count} names differ; first: {differing.FirstOrDefault()}");
    }
}
