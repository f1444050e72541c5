using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.Stacks;
using EtwSerializerProfiler.Tests.Support;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;

namespace EtwSerializerProfiler.Tests.Analyzer.Stacks;

/// <summary>
/// The raw pass reads every event's stack from the event itself and names it from the trace's method loads and
/// rundown; TraceLog converts the trace and names the same stacks its own way. On the two golden recordings, every
/// event with a stack must have the same frames, leaf first, both ways (the truth here is TraceLog's).
/// </summary>
public sealed class RawEventPipeStacksTests
{
    [Theory]
    [InlineData("eventpipe-only")]
    [InlineData("kernel-session")]
    public void Every_stack_is_named_as_TraceLog_names_it(string recording)
    {
        Assert.True(EventStackAddresses.Available);
        var dir = Repo.NewTempDir("rawstacks");
        try
        {
            var trace = Repo.GoldenTrace(recording, dir);
            var raw = RawStacks(trace);
            var traceLog = TraceLogStacksOf(trace);
            Assert.Equal(traceLog.Count, raw.Count);
            Assert.True(raw.Count > 1000, $"{raw.Count} stacks");
            var differing = raw.Zip(traceLog).Where(p => p.First != p.Second).ToList();
            Assert.True(differing.Count == 0, $"{differing.Count} of {raw.Count} stacks differ; first:\n  raw:      {differing.FirstOrDefault().First}\n  TraceLog: {differing.FirstOrDefault().Second}");
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    /// <summary>Each stacked event as "time thread provider/id: frames".</summary>
    private static List<string> RawStacks(string trace)
    {
        var stacks = new RawEventPipeStacks(matcher: null);
        var code = new ManagedCodeMap.Builder();
        var events = new List<(string Event, int Stack)>();
        using (var source = new EventPipeEventSource(trace))
        {
            code.Subscribe(source);
            source.AllEvents += e =>
            {
                var stack = stacks.StackOf(e);
                if (stack >= 0) events.Add((Describe(e), stack));
            };
            source.Process();
        }
        stacks.Code = code.Build();
        return [.. events.Select(x => $"{x.Event}: {string.Join(" <- ", stacks.Frames(x.Stack).Select(f => f.Display + "|" + f.Method))}")];
    }

    private static List<string> TraceLogStacksOf(string trace)
    {
        using var lease = EtlxCache.Open(trace, keep: false, progress: null);
        var stacks = new TraceLogStacks(lease.Log, matcher: null);
        var result = new List<string>();
        foreach (var e in lease.Log.Events)
        {
            var stack = stacks.StackOf(e);
            if (stack >= 0) result.Add($"{Describe(e)}: {string.Join(" <- ", stacks.Frames(stack).Select(f => f.Display + "|" + f.Method))}");
        }
        return result;
    }

    private static string Describe(TraceEvent e) => $"{e.TimeStampRelativeMSec:F4} {e.ThreadID} {e.ProviderGuid}/{(int)e.ID}";
}
