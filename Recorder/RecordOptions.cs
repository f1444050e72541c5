using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Kernel;
using EtwSerializerProfiler.Recorder.Commands;

namespace EtwSerializerProfiler.Recorder;

public enum Backend { EventPipe, Etw }

/// <summary>`record` options. Everything the recorder does not know is passed to the benchmark unchanged.</summary>
public sealed record RecordOptions
{
    public string? Out { get; init; }
    public string Profile { get; init; } = "default";
    public Backend Backend { get; init; } = Backend.EventPipe;
    /// <summary>--kernel perf|off: the Linux kernel session (perf_events) beside EventPipe; auto = perf where it works.</summary>
    public KernelMode Kernel { get; init; } = KernelMode.Auto;
    /// <summary>--eventpipe-samples on|off: EventPipe's SampleProfiler; auto = the profile decides (off where a kernel session samples the CPU).</summary>
    public bool? EventPipeSamples { get; init; }
    /// <summary>--framework net10.0|net472: which build of the benchmark to record.</summary>
    public BenchmarkFramework Framework { get; init; } = BenchmarkFramework.Net10;
    public bool Analyze { get; init; }
    public bool ListProfiles { get; init; }
    public bool Help { get; init; }
    /// <summary>`record -- cmd args`: any .NET program instead of the benchmark.</summary>
    public IReadOnlyList<string> Command { get; init; } = [];
    public IReadOnlyList<string> BenchmarkArgs { get; init; } = [];
    /// <summary>--env NAME=VALUE (repeatable): runtime settings for the recorded process, e.g. DOTNET_TieredCompilation=0.</summary>
    public IReadOnlyDictionary<string, string> Environment { get; init; } = new Dictionary<string, string>();

    private static readonly HashSet<string> OwnValueOptions = new(StringComparer.OrdinalIgnoreCase) { "out", "profile", "backend", "kernel", "eventpipe-samples", "framework" };
    private static readonly HashSet<string> OwnFlags = new(StringComparer.OrdinalIgnoreCase) { "analyze", "list-profiles", "help", "h" };

    /// <summary>Splits the recorder's own options from the benchmark's, keeping the benchmark's in order.</summary>
    public static RecordOptions Parse(IReadOnlyList<string> args)
    {
        var own = new Dictionary<string, string?>(StringComparer.OrdinalIgnoreCase);
        var environment = new Dictionary<string, string>(StringComparer.Ordinal);
        var benchmark = new List<string>();
        var command = new List<string>();
        for (var i = 0; i < args.Count; i++)
        {
            var a = args[i];
            if (a == "--") { command.AddRange(args.Skip(i + 1)); break; }
            var name = a.StartsWith("--", StringComparison.Ordinal) ? a[2..] : a.StartsWith('-') && a.Length == 2 ? a[1..] : null;
            string? inlineValue = null;
            if (name is not null && name.Contains('=', StringComparison.Ordinal))
            {
                inlineValue = name[(name.IndexOf('=', StringComparison.Ordinal) + 1)..];
                name = name[..name.IndexOf('=', StringComparison.Ordinal)];
            }
            if (name is not null && name.Equals("env", StringComparison.OrdinalIgnoreCase))
            {
                var assignment = inlineValue ?? (i + 1 < args.Count ? args[++i] : throw new UsageException("record: --env needs NAME=VALUE"));
                var eq = assignment.IndexOf('=', StringComparison.Ordinal);
                if (eq <= 0) throw new UsageException($"record: --env expects NAME=VALUE, got '{assignment}'");
                environment[assignment[..eq]] = assignment[(eq + 1)..];
            }
            else if (name is not null && OwnFlags.Contains(name)) own[name] = inlineValue;
            else if (name is not null && OwnValueOptions.Contains(name))
            {
                if (inlineValue is null && i + 1 >= args.Count) throw new UsageException($"record: option --{name} needs a value");
                own[name] = inlineValue ?? args[++i];
            }
            else benchmark.Add(a);
        }
        if (command.Count > 0 && benchmark.Count > 0)
            throw new UsageException($"record: benchmark option '{benchmark[0]}' cannot be combined with '-- <command>'");
        var backendDefault = Backend.EventPipe;
        var backend = own.TryGetValue("backend", out var b) && b is not null
            ? b.ToLowerInvariant() switch
            {
                "eventpipe" => Backend.EventPipe,
                "etw" => Backend.Etw,
                _ => throw new UsageException($"record: --backend must be eventpipe or etw, got '{b}'"),
            }
            : backendDefault;
        var kernel = own.TryGetValue("kernel", out var k) && k is not null
            ? k.ToLowerInvariant() switch
            {
                "perf" => KernelMode.Perf,
                "off" => KernelMode.Off,
                "auto" => KernelMode.Auto,
                _ => throw new UsageException($"record: --kernel must be perf, off or auto, got '{k}'"),
            }
            : KernelMode.Auto;
        var samples = own.TryGetValue("eventpipe-samples", out var es) && es is not null
            ? es.ToLowerInvariant() switch
            {
                "on" => true,
                "off" => (bool?)false,
                "auto" => null,
                _ => throw new UsageException($"record: --eventpipe-samples must be on, off or auto, got '{es}'"),
            }
            : null;
        var framework = own.TryGetValue("framework", out var f) && f is not null ? BenchmarkBuild.Parse(f) : BenchmarkFramework.Net10;
        if (framework == BenchmarkFramework.Net472)
        {
            if (backend != Backend.Etw)
                throw new UsageException($"record: --framework {BenchmarkBuild.Net472Moniker} records .NET Framework, which has no EventPipe: add --backend etw (Windows)");
            if (command.Count > 0)
                throw new UsageException("record: --framework picks a build of the benchmark; with -- <command> the command is what runs");
            if (benchmark.Any(a => a.Equals("--heap", StringComparison.OrdinalIgnoreCase) || a.StartsWith("--heap=", StringComparison.OrdinalIgnoreCase)))
                throw new UsageException("record: --heap needs the .NET diagnostics port, which .NET Framework does not have");
        }
        return new RecordOptions
        {
            Kernel = kernel,
            EventPipeSamples = samples,
            Out = own.GetValueOrDefault("out"),
            Profile = own.GetValueOrDefault("profile") ?? "default",
            Backend = backend,
            Framework = framework,
            Analyze = own.ContainsKey("analyze"),
            ListProfiles = own.ContainsKey("list-profiles"),
            Help = own.ContainsKey("help") || own.ContainsKey("h"),
            Command = command,
            BenchmarkArgs = benchmark,
            Environment = environment,
        };
    }

    public const string Usage = """
        esp record [options] [benchmark options]     record the serializer benchmark
        esp record [options] -- <command> [args]      record any .NET program

          --out DIR            trace folder (default: traces/<timestamp>)
          --profile NAME       trace profile (default: default; see --list-profiles)
          --backend eventpipe|etw   (default: eventpipe)
          --kernel perf|off    Linux: kernel session with perf_events beside EventPipe (on-CPU samples with
                               native and kernel frames, context switches, wake-ups); default: perf where it works
          --eventpipe-samples on|off   EventPipe's own CPU sampler (managed stacks at safe points); default: off
                               when the kernel session samples the CPU (it stops threads: docs/recorder.md), else on
          --framework net10.0|net472   benchmark build to record (default: net10.0); net472 is the .NET Framework
                               build, recorded with --backend etw on Windows (docs/windows.md)
          --analyze            print the analyzer's per-serializer tables when recording ends
          --env NAME=VALUE     environment for the recorded process (repeatable), e.g. DOTNET_TieredCompilation=0
          --list-profiles      list profiles with what each records
        Benchmark options (--n, --runs, --serializers, --test, --threads, --data, ...) pass through unchanged;
        --appcontext Name=true|false is also written to a runtimeconfig so it holds from the traced process's start.
          --heap a,b [--heap-objects N]   also dump the heap after a,b's deserialize of N objects (default: the first
                                          --n), original and result alive; read with `esp heap FOLDER` (docs/heap.md)
        """;
}
