using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Launch;
using EtwSerializerProfiler.Recorder.Kernel;

namespace EtwSerializerProfiler.Recorder;

public enum Backend { EventPipe, Etw }

/// <summary>
/// `esp record`'s settings. The command line that fills them is Cli/Commands/RecordVerb.cs (System.CommandLine):
/// everything it does not know goes to the benchmark unchanged, everything after `--` is the command to record.
/// </summary>
public sealed record RecordOptions
{
    public string? Out { get; init; }
    public string Profile { get; init; } = "default";
    public Backend Backend { get; init; } = Backend.EventPipe;
    /// <summary>--kernel perf|off: the Linux kernel session (perf_events) beside EventPipe; auto = perf where it works.</summary>
    public KernelMode Kernel { get; init; } = KernelMode.Auto;
    /// <summary>--eventpipe-samples on|off: EventPipe's SampleProfiler; auto = the profile decides (off where a kernel session samples the CPU).</summary>
    public bool? EventPipeSamples { get; init; }
    /// <summary>The kernel sampler's interval in ms (--cpu-sample-ms); null = the profile's (<see cref="Profiles.CpuSampling"/>).</summary>
    public double? CpuSampleMs { get; init; }
    /// <summary>--tracing-cost: measure what tracing costs each case, in the benchmark's process (TracingCostHandshake).</summary>
    public bool TracingCost { get; init; }
    /// <summary>--framework net10.0|net472: which build of the benchmark to record.</summary>
    public BenchmarkFramework Framework { get; init; } = BenchmarkFramework.Net10;
    /// <summary>--runtime 8.0|9.0|10.0: the .NET runtime the benchmark runs on; null = the SDK's (the build next to the tool).</summary>
    public BenchmarkRuntime? Runtime { get; init; }
    public bool Analyze { get; init; }
    /// <summary>--symbols DIR (repeatable, with --analyze): native debug files the analysis names native frames from.</summary>
    public IReadOnlyList<string> SymbolFolders { get; init; } = [];
    public bool ListProfiles { get; init; }
    /// <summary>--profiles FILE: the profiles file --profile is read from; null = the tool's Profiles/profiles.json.</summary>
    public string? ProfilesFile { get; init; }
    /// <summary>`record -- cmd args`: any .NET program instead of the benchmark.</summary>
    public IReadOnlyList<string> Command { get; init; } = [];
    public IReadOnlyList<string> BenchmarkArgs { get; init; } = [];
    /// <summary>The same arguments as the benchmark's parser read them: what the recorder acts on.</summary>
    public BenchmarkRequest Benchmark { get; init; } = BenchmarkRequest.None;
    /// <summary>--env NAME=VALUE (repeatable): runtime settings for the recorded process, e.g. DOTNET_TieredCompilation=0.</summary>
    public IReadOnlyDictionary<string, string> Environment { get; init; } = new Dictionary<string, string>();

    /// <summary>--pid: attach to this running .NET process instead of starting one (<see cref="EventPipe.AttachedRuntime"/>).</summary>
    public int? ProcessId { get; init; }
    /// <summary>--duration (with --pid): the recording ends after this long.</summary>
    public TimeSpan? Duration { get; init; }

    /// <summary>
    /// The exception session records to the end, whatever the throw rate (the profile's stacklessMaxMBPerSecond stops
    /// it otherwise): for runs that cannot count their throws in-process, as BenchmarkDotNet's iterations.
    /// </summary>
    public bool KeepExceptionEvents { get; init; }
    /// <summary>For a host that holds its process until the sessions record (the BenchmarkDotNet diagnoser): called once they do.</summary>
    public Action? OnRecording { get; init; }

    /// <summary>The combinations that cannot work, refused with one line before anything is created.</summary>
    public RecordOptions Validate()
    {
        if (SymbolFolders.Count > 0 && !Analyze)
            throw new UsageException("--symbols is for the analysis: add --analyze, or run esp analyze FOLDER --symbols DIR after recording");
        if (Command.Count > 0 && BenchmarkArgs.Count > 0)
            throw new UsageException($"benchmark option '{BenchmarkArgs[0]}' cannot be combined with '-- <command>'");
        if (Duration is not null && ProcessId is null)
            throw new UsageException("--duration is for --pid (a process esp starts is recorded until it exits)");
        if (ProcessId is { } pid)
        {
            // Attaching starts nothing: whatever shapes a process esp starts cannot apply.
            var starting = new (bool Given, string Name)[]
            {
                (Command.Count > 0, "-- <command>"), (BenchmarkArgs.Count > 0, $"benchmark option '{(BenchmarkArgs.Count > 0 ? BenchmarkArgs[0] : "")}'"),
                (Environment.Count > 0, "--env"), (Runtime is not null, "--runtime"), (Framework != BenchmarkFramework.Net10, "--framework"),
                (TracingCost, "--tracing-cost"), (Backend == Backend.Etw, "--backend etw"),
            };
            if (starting.FirstOrDefault(o => o.Given) is { Given: true } clash)
                throw new UsageException($"--pid {pid} attaches to a running process: {clash.Name} is for a process esp starts");
        }
        if (Framework == BenchmarkFramework.Net472)
        {
            if (Backend != Backend.Etw)
                throw new UsageException($"--framework {BenchmarkBuild.Net472Moniker} records .NET Framework, which has no EventPipe: add --backend etw (Windows)");
            if (Command.Count > 0)
                throw new UsageException("--framework picks a build of the benchmark; with -- <command> the command is what runs");
            if (Benchmark.Heap is not null)
                throw new UsageException("--heap needs the .NET diagnostics port, which .NET Framework does not have");
        }
        if (CpuSampleMs is not null && Kernel == KernelMode.Off && Backend != Backend.Etw)
            throw new UsageException("--cpu-sample-ms sets the kernel session's interval; with --kernel off EventPipe's sampler runs every 1 ms, fixed by the runtime");
        if (Runtime is not null)
        {
            if (Command.Count > 0)
                throw new UsageException("--runtime picks the runtime the benchmark runs on; with -- <command> the command is what runs");
            if (Framework == BenchmarkFramework.Net472)
                throw new UsageException($"--runtime and --framework {BenchmarkBuild.Net472Moniker} are two different builds: pick one");
            // A self-contained app reads its own runtimeconfig.json; the recorder's copy with the switches cannot be swapped in.
            if (!Runtime.IsToolRuntime && Benchmark.AppContextSwitches.Count > 0)
                throw new UsageException($"--appcontext with --runtime {Runtime.Requested} is not supported (the published build has its own runtimeconfig.json); record it on the SDK's runtime");
        }
        return this;
    }
}
