// A user's BenchmarkDotNet project with esp's diagnoser, as BdnDiagnoserTests installs it from the packed package into
// a fresh project (this file is its Program.cs; the tests write its .csproj, for net10.0 and net8.0). Each benchmark
// has a known shape: property sets through reflection, a known number of exceptions, a known number of bytes, and
// plain arithmetic. Three classes, one run: KnownShapes on the host's .NET 10, two of its shapes in a job that names
// .NET 8 (OnNet8), and two without the kernel session (WithoutPerf: EventPipe alone, as where perf is missing).
using System.Reflection;
using System.Runtime.CompilerServices;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Environments;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Running;
using EtwSerializerProfiler.BenchmarkDotNet;

BenchmarkRunner.Run([typeof(KnownShapes), typeof(OnNet8), typeof(WithoutPerf)], args: args);

/// <summary>A short job (fixed calls, no pilot): 20 to 400 ms an iteration (the iteration events sit up to 0.2 ms off BenchmarkDotNet's clock), 6 warm-ups, 10 measured.</summary>
[EspDiagnoser]
[MemoryDiagnoser]
[JsonExporterAttribute.Full]
[Config(typeof(ShortJob))]
public class KnownShapes
{
    public const int Sets = 1_000, Throws = 10, Arrays = 1_000, ArrayBytes = 64;


    public static readonly Job Short = Job.Default.WithLaunchCount(1).WithWarmupCount(6).WithIterationCount(10).WithInvocationCount(1024).WithUnrollFactor(1);

    public sealed class ShortJob : ManualConfig
    {
        public ShortJob() => AddJob(Short
            // The runtime's own perf map names the JIT code of perf's samples: the truth the reflection share is held to.
            // With W^X on, JIT code runs from a double mapping perf does not match to the map; precompiled code is in no
            // map, so the core library is compiled too (ReflectionTruthTests waits for tier 1 instead: too long here).
            // Compiled, RuntimePropertyInfo.SetValue is inlined into the caller, and both namings see no reflection
            // (0% and 0%): no inlining keeps its frames (88% reflection, as with the precompiled library).
            .WithEnvironmentVariables(new BenchmarkDotNet.Jobs.EnvironmentVariable("DOTNET_PerfMapEnabled", "3"),
                new BenchmarkDotNet.Jobs.EnvironmentVariable("DOTNET_EnableWriteXorExecute", "0"),
                new BenchmarkDotNet.Jobs.EnvironmentVariable("DOTNET_ReadyToRun", "0"),
                new BenchmarkDotNet.Jobs.EnvironmentVariable("DOTNET_JitNoInline", "1")));
    }

    public sealed class Target { public int A { get; set; } public string? B { get; set; } }

    private readonly PropertyInfo _a = typeof(Target).GetProperty(nameof(Target.A))!;
    private readonly PropertyInfo _b = typeof(Target).GetProperty(nameof(Target.B))!;
    private readonly Target _target = new();
    private readonly object[] _kept = new object[Arrays];
    private long _sink;

    /// <summary>Sets two properties through PropertyInfo.SetValue, as a reflection-based serializer does per member.</summary>
    [Benchmark]
    public void SetValue()
    {
        for (var i = 0; i < Sets; i++)
        {
            _a.SetValue(_target, i);
            _b.SetValue(_target, "x");
        }
    }

    /// <summary>Exactly <see cref="Throws"/> exceptions thrown and caught per call.</summary>
    [Benchmark]
    public long Throw()
    {
        for (var i = 0; i < Throws; i++)
        {
            try { Fail(i); }
            catch (FormatException) { _sink++; }
        }
        return _sink;
    }

    /// <summary><see cref="Arrays"/> byte arrays of <see cref="ArrayBytes"/> bytes each (40 of data, the header and length), kept in a ring.</summary>
    [Benchmark]
    public void Allocate()
    {
        for (var i = 0; i < Arrays; i++) _kept[i] = new byte[ArrayBytes - 24];
    }

    /// <summary>Arithmetic on the CPU, nothing else: its CPU per operation is its time per operation.</summary>
    [Benchmark]
    public long Spin()
    {
        var x = _sink;
        for (var i = 0; i < 50_000; i++) x = x * 31 + i;
        return _sink = x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Fail(int i) => throw new FormatException("not a number " + i);
}

/// <summary>Two of the shapes in a job that names .NET 8: this host runs on .NET 10, each benchmark's process on .NET 8.</summary>
[EspDiagnoser]
[JsonExporterAttribute.Full]
[Config(typeof(Net8Job))]
public class OnNet8
{
    public sealed class Net8Job : ManualConfig
    {
        public Net8Job() => AddJob(KnownShapes.Short.WithRuntime(CoreRuntime.Core80));
    }

    private readonly KnownShapes _shapes = new();

    [Benchmark] public long Spin() => _shapes.Spin();
    [Benchmark] public long Throw() => _shapes.Throw();
}

/// <summary>Two of the shapes without the kernel session: EventPipe alone, as on a machine without perf.</summary>
[EspDiagnoser(kernelSession: false)]
[JsonExporterAttribute.Full]
[Config(typeof(KnownShapes.ShortJob))]
public class WithoutPerf
{
    private readonly KnownShapes _shapes = new();

    [Benchmark] public long Spin() => _shapes.Spin();
    [Benchmark] public void SetValue() => _shapes.SetValue();
}
