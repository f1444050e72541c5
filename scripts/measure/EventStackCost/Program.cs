using System.Diagnostics.Tracing;
using System.Globalization;
using System.Runtime.InteropServices;
using Microsoft.Diagnostics.NETCore.Client;

// What an EventPipe stack walk costs per GC allocation tick (about one event per 100 KB allocated), measured in one
// process: the same allocation loop at a given stack depth with no session, a session of the GC keyword at level
// Verbose with stacks, and the same without stacks (CollectTracing3's per-session flag), in rounds. Thread CPU clock.
// Usage: EventStackCost [rounds] [depth...]
internal static partial class Program
{
    private const int Allocations = 20_000_000;
    private const int BytesPerAllocation = 224; // a byte[200] with its header, on 64-bit
    private static object? s_sink;

    [LibraryImport("libc", EntryPoint = "clock_gettime")]
    private static partial int ClockGetTime(int clock, out TimeSpec time);

    [StructLayout(LayoutKind.Sequential)]
    private struct TimeSpec { public long Seconds, Nanoseconds; }

    private static double ThreadCpuMs()
    {
        const int ThreadCpuClock = 3;
        _ = ClockGetTime(ThreadCpuClock, out var t);
        return t.Seconds * 1e3 + t.Nanoseconds / 1e6;
    }

    private static double Allocate(int depth)
    {
        if (depth > 0) return Allocate(depth - 1) + 0.0;
        var start = ThreadCpuMs();
        for (var i = 0; i < Allocations; i++) s_sink = new byte[200];
        return ThreadCpuMs() - start;
    }

    private static int Main(string[] args)
    {
        var rounds = args.Length > 0 ? int.Parse(args[0], CultureInfo.InvariantCulture) : 5;
        var depths = args.Length > 1 ? args.Skip(1).Select(a => int.Parse(a, CultureInfo.InvariantCulture)).ToArray() : [30, 80];
        var client = new DiagnosticsClient(Environment.ProcessId);
        EventPipeProvider[] gcVerbose = [new("Microsoft-Windows-DotNETRuntime", EventLevel.Verbose, 0x1)];
        var modes = new (string Name, bool Traced, bool Stacks)[] { ("no session", false, false), ("with stacks", true, true), ("without stacks", true, false) };
        var ticks = (double)Allocations * BytesPerAllocation / 102_400;
        Console.WriteLine($"| stack depth | session | thread CPU ms (median of {rounds}) | cost | per allocation tick |");
        Console.WriteLine("|---:|---|---:|---:|---:|");
        foreach (var depth in depths)
        {
            var ms = modes.ToDictionary(m => m.Name, _ => new List<double>());
            Allocate(depth);
            for (var round = 0; round < rounds; round++)
                foreach (var mode in modes)
                {
                    EventPipeSession? session = null;
                    Task? drain = null;
                    if (mode.Traced)
                    {
                        session = client.StartEventPipeSession(new EventPipeSessionConfiguration(gcVerbose, 256, requestRundown: false, requestStackwalk: mode.Stacks));
                        drain = session.EventStream.CopyToAsync(Stream.Null);
                    }
                    Allocate(depth);
                    ms[mode.Name].Add(Allocate(depth));
                    if (session is not null)
                    {
                        session.Stop();
                        drain!.Wait();
                        session.Dispose();
                    }
                }
            var baseline = Median(ms["no session"]);
            foreach (var mode in modes)
            {
                var m = Median(ms[mode.Name]);
                Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                    $"| {depth} | {mode.Name} | {m:F0} | {(m / baseline - 1) * 100:+0.0;-0.0}% | {(mode.Traced ? $"{(m - baseline) * 1000 / ticks:F2} µs" : "")} |"));
            }
        }
        return 0;
    }

    private static double Median(List<double> values) => values.Order().ElementAt(values.Count / 2);
}
