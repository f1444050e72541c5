using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing.Collectors;
using EtwSerializerProfiler.Analyzer.Samples;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>JIT time, by run and thread (<see cref="JitCollector"/>); each compilation is also a span of runtime work (<see cref="RuntimeWorkStage"/>).</summary>
internal sealed class JitStage : IPassStage
{
    private readonly JitCollector _jit = new();

    public ClrEventFamily? Missing => _jit.Seen ? null : new("JIT timing (CLR Jit keyword 0x10 at Verbose level)", 0x10, System.Diagnostics.Tracing.EventLevel.Verbose);

    public void Subscribe(TraceEventDispatcher source, IPass pass)
    {
        var work = pass.Stage<RuntimeWorkStage>().Work;
        source.Clr.MethodJittingStarted += e => _jit.Start(e.ThreadID, (long)e.MethodID, e.TimeStampRelativeMSec, inRun: pass.RunOf(e) is not null);
        source.Clr.MethodLoadVerbose += e =>
        {
            if (_jit.Loaded(e.ThreadID, (long)e.MethodID, e.TimeStampRelativeMSec, pass.OpenRun, pass.ThreadOf(e)) is { } compiled && pass.InProcess(e))
            {
                work.Add(e.ThreadID, RuntimeWorkKind.Jit, compiled);
                pass.Marks?.Jitted(new SpanMark(e.ThreadID, compiled.StartMs, compiled.EndMs, $"{e.MethodNamespace}.{e.MethodName}"));
            }
        };
    }
}
