namespace EtwSerializerProfiler.Recorder.Kernel;

public enum KernelMode
{
    /// <summary>perf on Linux wherever it works; the ETW backend has its own kernel session.</summary>
    Auto,
    Perf,
    Off,
}
