namespace EtwSerializerProfiler.Analyzer.Samples;

/// <summary>
/// One CPU sample of any source on the trace's time line (ms since the trace's start). A sampler that weighs each
/// sample by the time since the thread's previous one (EventPipe's) gives that time as <see cref="SinceMs"/> and the
/// largest weight it may have as <see cref="CapMs"/>; a timer sampler (perf, ETW's profile interrupt) stands for
/// one period and leaves both at its time and period. <see cref="InGc"/>: taken while the runtime was stopped for a
/// GC (the thread's work then is the GC's, whatever its stripped native frames say).
/// </summary>
internal readonly record struct CpuSample(int ThreadId, double TimeMs, int StackId, bool InGc, double SinceMs, double CapMs);
