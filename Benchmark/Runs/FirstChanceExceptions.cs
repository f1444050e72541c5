namespace EtwSerializerProfiler.Benchmark.Runs;

/// <summary>
/// Every first-chance exception the process throws, counted in-process (AppDomain.FirstChanceException): the truth a
/// trace's exception count per run is held to. The handler is added once, before the first run is measured.
/// </summary>
public static class FirstChanceExceptions
{
    private static long _count;

    static FirstChanceExceptions() => AppDomain.CurrentDomain.FirstChanceException += (_, _) => Interlocked.Increment(ref _count);

    public static long Count => Interlocked.Read(ref _count);
}
