using System.ComponentModel;
using System.Reflection;
using System.Runtime.CompilerServices;
using EtwSerializerProfiler.Benchmark.Runs;

namespace EtwSerializerProfiler.Workloads;

/// <summary>One attributes run's truth: each part's thread CPU time outside GC, in milliseconds.</summary>
public sealed record AttributesTruth(int Run, double AttributesMs, double ArithmeticMs);

/// <summary>
/// Custom-attribute lookups (what YamlDotNet and other serializers do per property: the runtime parses the metadata
/// and creates the attributes anew on every call) interleaved with plain arithmetic, in chunks of random part and
/// random length (0.5-3 ms, fixed seed) with the thread CPU clock read around each. Aimed at 35% lookups; the first three
/// runs are warm-ups: JIT on this thread during a measured run counts as lookups in-process but as JIT in the trace
/// (measured with one warm-up of 150 ms on a machine at load average 34: 22 ms of JIT, 2.8 points).
/// </summary>
public sealed class AttributesWorkload
{
    private readonly PropertyInfo[] _properties = typeof(Annotated).GetProperties();
    private readonly Random _random = new(20261123);
    private long _sink = 1;

    public sealed class Annotated
    {
        [Description("first")] [Category("a")] public string? First { get; set; }
        [Description("second")] [DisplayName("Second")] public int Second { get; set; }
        [Description("third")] [Browsable(false)] public double Third { get; set; }
    }

    public IReadOnlyList<AttributesTruth> Run(RunScope scope, int runs, double runMs)
    {
        var perUs = new[] { Calibrate(0), Calibrate(1) };
        var result = new List<AttributesTruth>();
        for (var run = 0; run < runs; run++)
        {
            var cpu = new double[2];
            scope.Measure(new RunContext("Attributes", "lookup", "attributes", 1, run, Warmup: run < 3), () =>
            {
                while (cpu[0] + cpu[1] < runMs)
                {
                    var part = _random.NextDouble() < 0.35 ? 0 : 1;
                    var n = Math.Max(1, (int)((500 + _random.NextDouble() * 2500) * perUs[part]));
                    var ms = ChunkClock.Ms(() => RunPart(part, n));
                    cpu[part] += ms;
                    if (ms > 0) perUs[part] = 0.8 * perUs[part] + 0.2 * (n / (ms * 1000));
                }
            });
            result.Add(new AttributesTruth(run, cpu[0], cpu[1]));
        }
        GC.KeepAlive(_sink);
        return result;
    }

    private double Calibrate(int part)
    {
        // Past tier 1 (30 calls, then the tiering delay) for the lookups and the core library methods under them.
        for (var i = 0; i < 300; i++) RunPart(part, 200);
        var sw = System.Diagnostics.Stopwatch.StartNew();
        var done = 0L;
        while (sw.Elapsed.TotalMilliseconds < 20) { RunPart(part, 200); done += 200; }
        return done / (sw.Elapsed.TotalMilliseconds * 1000);
    }

    private void RunPart(int part, int n)
    {
        if (part == 0) Lookups(n);
        else _sink = Arithmetic.Loop(Math.Max(1, n / 8), _sink | 1);
    }

    // GetCustomAttribute<T>, as YamlDotNet and most serializers ask, keeps a reflection frame (Attribute.GetCustomAttribute)
    // above the lookup's work. Attribute.GetCustomAttributes tail-calls into it instead, and when the runtime's frameless
    // native helpers hide their caller under frame-pointer unwinding, the next frame up is this method: measured, 6.6
    // points of the lookups then went to the caller (docs/analyzer.md, "Frame-pointer stacks").
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void Lookups(int n)
    {
        for (var i = 0; i < n; i++)
            _sink += _properties[i % _properties.Length].GetCustomAttribute<DescriptionAttribute>(inherit: true)?.Description.Length ?? 0;
    }
}
