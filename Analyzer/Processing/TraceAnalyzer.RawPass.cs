using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Analyzer.Stacks;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing;

public sealed partial class TraceAnalyzer
{
    /// <summary>
    /// An EventPipe trace in one raw <see cref="EventPipeEventSource"/> pass, its stacks read from the events
    /// themselves (<see cref="RawEventPipeStacks"/>), without converting it to .etlx first: the conversion and the
    /// pass over its output cost three times this pass (docs/analyzer.md, "One raw pass"). Null when the trace is
    /// left to TraceLog: a damaged or cut file (whose reading TraceLog's conversion reports), a .netperf, or a trace
    /// whose answers given before its rundown do not hold once everything is named (<see cref="RawPassUnsure"/>).
    /// </summary>
    private Pass? RawPass(TraceInput input, AnalysisDraft analysis, StackTagMatcher? matcher, IProgress<string>? progress, ExceptionFiles? exceptionFiles, StackFile? stackFile, Common.HarnessInfo? harness)
    {
        if (options.ThroughTraceLog || input.Format != TraceFormat.NetTrace || input.NetPerf || !EventStackAddresses.Available) return null;
        var blocks = NetTraceBlocks.Scan(input.TracePath);
        if (blocks.Truncated || blocks.TrailingBytes > 0 || blocks.Unsupported is not null) return null;
        EventPipeEventSource? source = null;
        try
        {
            source = FileReads.Events(input.TracePath);
            var facts = new RawEventPipeFacts(source);
            var state = new PassState(analysis, facts, new RawEventPipeStacks(matcher), OpenSources(input, log: null), options, progress, Stages, new PassFiles(exceptionFiles, stackFile, harness));
            // Templates TraceLog's conversion registers, so payloads read alike: EventSource events (the runs',
            // BenchmarkDotNet's) from the trace's metadata, by the dynamic parser; the sampler's events, whose
            // metadata names no field, by TraceEvent's own parser (the sample's type: external or managed code).
            source.Dynamic.All += _ => { };
            new Microsoft.Diagnostics.Tracing.EventPipe.SampleProfilerTraceEventParser(source).ThreadSample += _ => { };
            state.Subscribe(source);
            progress?.Report($"analyzing {Fmt.DisplayPath(input.TracePath)} ({new FileInfo(input.TracePath).Length / 1048576.0:F1} MB) in one pass...");
            source.Process();
            state.CodeKnown();
            return new Pass(state, source, facts, source);
        }
        catch (Exception ex) when (ex is RawPassUnsure || ReaderFault.IsFrom(ex, ReaderFault.TraceEvent))
        {
            source?.Dispose();
            progress?.Report(ex is RawPassUnsure
                ? "methods named only by the trace's rundown decide its run windows: converting it to .etlx to read it again..."
                : "the trace did not read cleanly in one pass: converting it to .etlx to read what can be read...");
            return null;
        }
    }
}

/// <summary>A raw pass's answers given before the rundown named every method changed once it had: the pass is redone through TraceLog.</summary>
internal sealed class RawPassUnsure() : Exception("a raw pass's early answers changed once the rundown named every method");
