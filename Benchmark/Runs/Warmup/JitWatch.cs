using System.Runtime.CompilerServices;
using System.Diagnostics;

namespace EtwSerializerProfiler.Benchmark.Runs.Warmup;

/// <summary>
/// When the JIT was last seen compiling, process-wide, from the JitInfo readings taken around every run. The readings
/// only bracket a compile, so a change is dated at the reading that saw it: never earlier than it happened, which is
/// the safe side for "quiet since". Shared by every case of one benchmark process: a compile in another case counts,
/// because any new tier-0 code restarts the runtime's call-counting delay for everyone.
/// </summary>
public sealed class JitWatch
{
    private long? _count;

    /// <summary>Stopwatch timestamp of the reading that last saw the count rise (or of the first reading); null without readings.</summary>
    public long? LastChangeTimestamp { get; private set; }

    [MethodImpl(HarnessCode.Optimized)]
    public void Observe(JitSnapshot? snapshot, long timestamp)
    {
        if (snapshot is not { } s) return;
        // The first reading cannot tell when start-up compiled last: assume just now.
        if (_count != s.CompiledMethods) LastChangeTimestamp = timestamp;
        _count = s.CompiledMethods;
    }

    /// <summary>Milliseconds from one Stopwatch timestamp to another (negative when <paramref name="to"/> is earlier).</summary>
    [MethodImpl(HarnessCode.Optimized)]
    public static double Ms(long from, long to) => (to - from) * 1000.0 / Stopwatch.Frequency;
}
