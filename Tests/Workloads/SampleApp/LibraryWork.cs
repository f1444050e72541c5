using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace EtwSerializerProfiler.Workloads
{
    /// <summary>What the two libraries cost, by the thread CPU clock around each call (in-process truth), with the share each had of their sum.</summary>
    public sealed record LibraryTruth(double PricingMs, double RoutingMs, int Rounds, int ExceptionsThrown, long LockContentions);

    /// <summary>
    /// Two libraries of one app (the namespaces Pricing and Routing) doing known shares of the work: 2 parts pricing to
    /// 1 part routing, interleaved, each call timed by the thread's CPU clock. No exceptions, no lock: a trace that
    /// enabled those events must say "enabled, none happened".
    /// </summary>
    public static class LibraryWork
    {
        public static LibraryTruth Run(double totalMs)
        {
            var contentionBefore = System.Threading.Monitor.LockContentionCount;
            double pricing = 0, routing = 0;
            var rounds = 0;
            var book = new Pricing.PriceBook();
            var planner = new Routing.RoutePlanner(48);
            // Rounds of 20 ms pricing and 10 ms routing until the total is spent.
            while (pricing + routing < totalMs)
            {
                var t0 = ThreadClock.Ms();
                book.Quote(20);
                var t1 = ThreadClock.Ms();
                planner.Shortest(10);
                var t2 = ThreadClock.Ms();
                pricing += t1 - t0;
                routing += t2 - t1;
                rounds++;
            }
            return new LibraryTruth(pricing, routing, rounds, 0, System.Threading.Monitor.LockContentionCount - contentionBefore);
        }
    }

    /// <summary>The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID), in ms.</summary>
    public static class ThreadClock
    {
        [StructLayout(LayoutKind.Sequential)]
        private struct Timespec { public long Seconds; public long Nanoseconds; }

        [DllImport("libc", EntryPoint = "clock_gettime")]
        private static extern int ClockGetTime(int clock, out Timespec time);

        public static double Ms()
        {
            if (ClockGetTime(3, out var t) != 0) throw new InvalidOperationException("clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
            return t.Seconds * 1000.0 + t.Nanoseconds / 1e6;
        }
    }
}

namespace EtwSerializerProfiler.Workloads.Pricing
{
    /// <summary>Floating-point work: prices of a book of instruments, until <c>ms</c> of this thread's CPU are spent.</summary>
    public sealed class PriceBook
    {
        private readonly double[] _prices = [.. Enumerable.Range(1, 256).Select(i => 100.0 + i)];
        public double Last { get; private set; }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public void Quote(double ms)
        {
            var end = EtwSerializerProfiler.Workloads.ThreadClock.Ms() + ms;
            do Last += Discount(_prices);
            while (EtwSerializerProfiler.Workloads.ThreadClock.Ms() < end);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static double Discount(double[] prices)
        {
            var sum = 0.0;
            for (var r = 0; r < 40; r++)
                foreach (var p in prices) sum += p / (1.0 + 0.0001 * r) * 0.999;
            return sum;
        }
    }
}

namespace EtwSerializerProfiler.Workloads.Routing
{
    /// <summary>Integer work: shortest paths over a small grid of roads (Floyd-Warshall), until <c>ms</c> of this thread's CPU are spent.</summary>
    public sealed class RoutePlanner(int nodes)
    {
        private readonly int[] _distance = new int[nodes * nodes];
        public long Checksum { get; private set; }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public void Shortest(double ms)
        {
            var end = EtwSerializerProfiler.Workloads.ThreadClock.Ms() + ms;
            do Checksum += Relax(_distance, nodes);
            while (EtwSerializerProfiler.Workloads.ThreadClock.Ms() < end);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Relax(int[] d, int n)
        {
            for (var i = 0; i < n; i++)
                for (var j = 0; j < n; j++) d[i * n + j] = i == j ? 0 : 1 + (i * 7 + j * 13) % 97;
            for (var k = 0; k < n; k++)
                for (var i = 0; i < n; i++)
                    for (var j = 0; j < n; j++)
                        if (d[i * n + k] + d[k * n + j] < d[i * n + j]) d[i * n + j] = d[i * n + k] + d[k * n + j];
            return d[n - 1];
        }
    }
}
