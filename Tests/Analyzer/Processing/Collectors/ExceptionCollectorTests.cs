using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing.Collectors;
using EtwSerializerProfiler.Analyzer.StackTags;
using static EtwSerializerProfiler.Tests.Analyzer.Processing.Collectors.CollectorInputs;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Processing.Collectors;

public sealed class ExceptionCollectorTests
{
    private const string Frame = "System.Private.DataContractSerialization!System.Text.Base64Encoding.GetBytes";

    [Fact]
    public void A_runs_sites_are_by_type_and_frame_a_threads_also_by_stack_tag()
    {
        var exceptions = new ExceptionCollector();
        var run = Run(10, 20);
        var thread = Thread();
        exceptions.Thrown(run, thread, new ExceptionSite("System.FormatException", Sites.Frame(Frame), "DataContract"));
        exceptions.Thrown(run, thread, new ExceptionSite("System.FormatException", Sites.Frame(Frame), "DataContract\\Base64"));
        exceptions.Thrown(null, thread, new ExceptionSite("System.FormatException", Sites.Frame(Frame), "DataContract"));
        exceptions.Thrown(run, thread, new ExceptionSite("System.Xml.XmlException", Sites.Frame("X!Y.Z"), "Other"));

        Assert.True(exceptions.Seen);
        Assert.Equal(3, run.Counters.Freeze().Exceptions);
        // The run's first site first (the JSON keeps this order), both tags in one entry.
        Assert.Equal([(new ExceptionSite("System.FormatException", Sites.Frame(Frame)), 2), (new ExceptionSite("System.Xml.XmlException", Sites.Frame("X!Y.Z")), 1)],
            run.Counters.Freeze().ExceptionsBySite.Select(p => (p.Key, p.Value)));
        Assert.Equal(4, thread.Counters.Freeze().Exceptions);
        Assert.Equal(3, thread.Counters.Freeze().ExceptionsBySite.Count);
        Assert.Equal(2, thread.Counters.Freeze().ExceptionsBySite[new ExceptionSite("System.FormatException", Sites.Frame(Frame), "DataContract")]);
    }

    [Fact]
    public void The_thrower_is_the_top_resolved_frame_outside_the_runtimes_throw_machinery()
    {
        StackFrame[] frames =
        [
            new("System.Private.CoreLib.dll", "System.Runtime.EH.DispatchEx(...)"),
            new("System.Private.CoreLib.dll", "System.Runtime.ExceptionServices.InternalCalls.RhpThrowEx"),
            new("libcoreclr.so", StackFrame.Unresolved),
            new("System.Private.DataContractSerialization.dll", "System.Text.Base64Encoding.GetBytes(char[],int32)"),
            new("App.dll", "App.Program.Main()"),
        ];
        Assert.Equal(Frame, CodeSite.At(ExceptionCollector.ThrowerOf(frames)).Name);
        Assert.Equal(CodeSite.UnknownFrame, ExceptionCollector.ThrowerOf(frames[..3]));
        Assert.Equal(CodeSite.UnknownFrame, ExceptionCollector.ThrowerOf([]));
    }
}
