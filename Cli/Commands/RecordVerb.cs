using System.CommandLine;
using System.CommandLine.Parsing;
using System.Text.RegularExpressions;
using EtwSerializerProfiler.Benchmark;
using EtwSerializerProfiler.Cli.Terminal;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Recorder.Launch;
using EtwSerializerProfiler.Recorder.Heap;
using EtwSerializerProfiler.Recorder.Kernel;

namespace EtwSerializerProfiler.Cli.Commands;

/// <summary>
/// `esp record`: the recorder's options are declared here; whatever it does not know goes to the benchmark unchanged,
/// in order (checked by the benchmark's own parser before anything starts), and everything after `--` is a program to
/// record instead, verbatim.
/// </summary>
public sealed partial class RecordVerb
{
    public const string Name = "record";

    private readonly Option<string?> _out = new("--out") { Description = "the trace folder (default: traces/<timestamp>)", HelpName = "DIR" };
    private readonly Option<string> _profile;
    private readonly Option<Backend> _backend = OptionTypes.Choice("--backend", "EventPipe on every OS (default), or ETW: Windows, an elevated prompt (docs/wpa.md)",
        ("eventpipe", Backend.EventPipe), ("etw", Backend.Etw));
    private readonly Option<KernelMode> _kernel = OptionTypes.Choice("--kernel", "Linux: a kernel session with perf_events beside EventPipe (on-CPU samples with native and " +
        "kernel frames, context switches, wake-ups); default: perf where it works", ("perf", KernelMode.Perf), ("off", KernelMode.Off), ("auto", KernelMode.Auto));
    // Not Option<bool?>: System.CommandLine lets a bool option take only true/false after it, so "on" would be left over.
    private readonly Option<Sampler> _eventPipeSamples = OptionTypes.Choice("--eventpipe-samples", "EventPipe's own CPU sampler (managed stacks at safe points); " +
        "default: off when the kernel session samples the CPU (it stops threads: docs/recorder.md), else on", ("on", Sampler.On), ("off", Sampler.Off), ("auto", Sampler.Auto));
    private readonly Option<double?> _cpuSampleMs = OptionTypes.Number("--cpu-sample-ms", "the kernel session's CPU sample interval (default: the profile's, " +
        "1 ms; 2 ms on a virtual machine: docs/recorder.md#the-sampler-alone)", "MS", 0.1, 1000);
    private readonly Option<BenchmarkFramework> _framework = new("--framework")
    {
        Description = $"the benchmark build to record (default {BenchmarkBuild.Net10Moniker}); {BenchmarkBuild.Net472Moniker} is the .NET Framework build, " +
            "recorded with --backend etw on Windows (docs/windows.md)",
        HelpName = $"{BenchmarkBuild.Net10Moniker}|{BenchmarkBuild.Net472Moniker}",
        CustomParser = r =>
        {
            try { return BenchmarkBuild.Parse(r.Tokens[^1].Value); }
            catch (UsageException ex) { r.AddError(ex.Message); return default; }
        },
    };
    private readonly Option<IReadOnlyList<BenchmarkRuntime>> _runtime = new("--runtime")
    {
        Description = "the .NET runtime(s) to run the benchmark on: 8.0, 9.0, 10.0 or an exact version such as 8.0.31 (default: the SDK's); " +
            "several are recorded interleaved, a folder each under --out (docs/recorder.md)",
        HelpName = "8.0|9.0|10.0[,..]",
        DefaultValueFactory = _ => [],
        CustomParser = r =>
        {
            try { return [.. r.Tokens[^1].Value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).Select(BenchmarkRuntime.Parse)]; }
            catch (UsageException ex) { r.AddError(ex.Message); return []; }
        },
    };
    private readonly Option<int> _launches = OptionTypes.Int("--launches", "record each runtime this many times, interleaved, a folder each under --out " +
        "(RUNTIME-N), for esp diff A1 A2 .. vs B1 B2 ..", 1, min: 1, max: 100);
    private readonly Option<bool> _analyze = new("--analyze") { Description = "print the analyzer's per-serializer tables when recording ends (esp analyze)" };
    private readonly Option<bool> _tracingCost = new("--tracing-cost") { Description = "after the measured runs, run each case again with tracing off and on, " +
        "in the same process, and report what tracing cost it (docs/recorder.md#what-tracing-costs; EventPipe backend)" };
    private readonly Option<IReadOnlyDictionary<string, string>> _env = new("--env")
    {
        Description = "environment for the recorded process (repeatable), e.g. DOTNET_TieredCompilation=0",
        HelpName = "NAME=VALUE",
        Arity = ArgumentArity.OneOrMore,
        AllowMultipleArgumentsPerToken = false,
        DefaultValueFactory = _ => new Dictionary<string, string>(),
        CustomParser = r =>
        {
            var environment = new Dictionary<string, string>(StringComparer.Ordinal);
            foreach (var assignment in r.Tokens.Select(t => t.Value))
            {
                var eq = assignment.IndexOf('=', StringComparison.Ordinal);
                if (eq <= 0) r.AddError($"--env expects NAME=VALUE, got '{assignment}'");
                else environment[assignment[..eq]] = assignment[(eq + 1)..];
            }
            return environment;
        },
    };
    private readonly Option<int?> _pid = new("--pid")
    {
        Description = "attach to a running .NET process; Ctrl+C, --duration or its exit ends the recording, and it runs on " +
            "(docs/recorder.md#attach)",
        HelpName = "PID",
        CustomParser = r =>
        {
            var text = r.Tokens[^1].Value;
            if (int.TryParse(text, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out var v) && v > 0) return v;
            r.AddError($"--pid expects a process id, got '{text}'");
            return null;
        },
    };
    private readonly Option<double?> _duration = OptionTypes.Number("--duration", "with --pid: stop recording after this many seconds", "SECONDS", 0.1, 86_400);
    private readonly Option<bool> _listProfiles = new("--list-profiles") { Description = "list the trace profiles with what each records" };
    private readonly Option<string?> _profilesFile = new("--profiles") { Description = "read --profile from this profiles file instead of the tool's " +
        "(docs/recorder.md#what-tracing-costs)", HelpName = "FILE" };

    /// <summary>Shown after the options in `esp record --help`: the benchmark's own options, from its parser's help.</summary>
    public static string Epilogue { get; } = $"""
        Any other option goes to the benchmark unchanged (checked before recording starts), or everything after
        -- is any .NET program to record instead:
          esp record [options] [benchmark options]
          esp record [options] -- <command> [args]
        --appcontext Name=true|false is also written to a runtimeconfig, so it holds from the traced process's start;
        heap snapshots of --heap a,b are read with esp heap FOLDER (docs/heap.md).

        Benchmark options (docs/benchmark.md):
        {BenchmarkOptionsHelp()}
        """;

    public Command Command { get; }

    private readonly Option<string[]> _symbols;

    private RecordVerb(CommonOptions common)
    {
        _profile = common.Profile;
        _symbols = common.Symbols;
        Command = new Command(Name, "trace the serializer benchmark (or -- any .NET command) into a self-describing trace folder")
        {
            _out, _profile, _backend, _kernel, _eventPipeSamples, _cpuSampleMs, _framework, _runtime, _launches, _analyze, _tracingCost, _symbols, _env, _pid, _duration, _listProfiles, _profilesFile,
        };
        // What the recorder does not know is the benchmark's (or, after --, the command's).
        Command.TreatUnmatchedTokensAsErrors = false;
    }

    public static Command Create(CommonOptions common, IConsole console)
    {
        var verb = new RecordVerb(common);
        verb.Command.SetAction((parse, cancel) => CommandRunner.RunAsync(Name, console, () =>
        {
            ManagedEsp.Require(Name);
            var options = verb.Bind(parse);
            var runtimes = parse.GetValue(verb._runtime)!;
            var launches = parse.GetValue(verb._launches);
            return LaunchPlan.IsSeveral(runtimes, launches)
                ? RecordLaunches.RunAsync(options, runtimes, launches, console, cancel)
                : RunAsync(options, console, cancel);
        }, cancel));
        return verb.Command;
    }

    /// <summary>`esp record ARGS` as options, without recording (tests, and Tests/Support/Recording).</summary>
    public static RecordOptions Parse(IReadOnlyList<string> args)
    {
        var verb = new RecordVerb(new CommonOptions());
        var result = new RootCommand { verb.Command }.Parse([Name, .. args]);
        if (UsageErrors.Find(result) is { } error) throw new UsageException(error.Message);
        return verb.Bind(result);
    }

    public static async Task<int> RunAsync(RecordOptions options, IConsole console, CancellationToken cancel)
    {
        int exit;
        TraceFolder? folder;
        // The recorded program writes to the same terminal: plain lines while it runs.
        using (var progress = console.StartProgress(live: false))
            (exit, folder) = await RecordCommand.RunAsync(options, console.Out, progress, cancel).ConfigureAwait(false);
        if (options.Analyze && folder is not null && (File.Exists(folder.Trace) || File.Exists(folder.Etl)))
        {
            console.Out.WriteLine();
            var analyzeExit = AnalyzeVerb.Run(new AnalyzeVerb.Settings(folder.Path) { Options = new() { SymbolFolders = options.SymbolFolders } }, console);
            if (exit == ExitCodes.Ok) exit = analyzeExit;
        }
        return exit;
    }

    private RecordOptions Bind(ParseResult parse)
    {
        var (benchmark, command) = PassedOn(parse);
        var listProfiles = parse.GetValue(_listProfiles);
        var pid = parse.GetValue(_pid);
        var request = command.Count == 0 && !listProfiles && pid is null ? CheckBenchmarkArgs(benchmark, UsageErrors.OptionNames(parse.CommandResult)) : BenchmarkRequest.None;
        return new RecordOptions
        {
            Out = parse.GetValue(_out),
            Profile = parse.GetValue(_profile)!,
            Backend = parse.GetValue(_backend),
            Kernel = parse.GetValue(_kernel),
            EventPipeSamples = parse.GetValue(_eventPipeSamples) switch { Sampler.On => true, Sampler.Off => false, _ => null },
            CpuSampleMs = parse.GetValue(_cpuSampleMs),
            Framework = parse.GetValue(_framework),
            Runtime = parse.GetValue(_runtime) is [var single] ? single : null,
            Analyze = parse.GetValue(_analyze),
            TracingCost = parse.GetValue(_tracingCost),
            SymbolFolders = parse.GetValue(_symbols)!,
            ListProfiles = listProfiles,
            ProfilesFile = parse.GetValue(_profilesFile),
            Environment = parse.GetValue(_env)!,
            ProcessId = pid,
            Duration = parse.GetValue(_duration) is { } seconds ? TimeSpan.FromSeconds(seconds) : null,
            BenchmarkArgs = benchmark,
            Benchmark = request,
            Command = command,
        }.Validate();
    }

    /// <summary>The tokens the recorder did not take, in order: before `--` the benchmark's, after it the command.</summary>
    private static (IReadOnlyList<string> Benchmark, IReadOnlyList<string> Command) PassedOn(ParseResult parse)
    {
        var doubleDash = parse.Tokens.ToList().FindIndex(t => t.Type == TokenType.DoubleDash);
        IReadOnlyList<string> command = doubleDash < 0 ? [] : [.. parse.Tokens.Skip(doubleDash + 1).Select(t => t.Value)];
        var unmatched = parse.UnmatchedTokens;
        return ([.. unmatched.Take(unmatched.Count - command.Count)], command);
    }

    /// <summary>
    /// The benchmark's own parser, run here before a folder is made or a process started: a typo fails in a second
    /// instead of after a build and a trace session, and names the option it was meant to be. What it parsed is what
    /// the recorder acts on (<see cref="BenchmarkRequest"/>): the arguments are read once, by their owner.
    /// </summary>
    /// <param name="own">The recorder's options (and --help): a typo may be meant for one of them.</param>
    private static BenchmarkRequest CheckBenchmarkArgs(IReadOnlyList<string> args, IReadOnlyList<string> own)
    {
        try
        {
            return RequestOf(BenchmarkOptions.Parse(args), args);
        }
        catch (UsageException)
        {
            var known = BenchmarkOptionNames();
            var unknown = args.Where(a => a.StartsWith('-')).Select(a => a.Split('=')[0]).FirstOrDefault(n => !known.Contains(n, StringComparer.OrdinalIgnoreCase));
            if (unknown is null) throw;
            var candidates = own.Concat(known);
            throw new UsageException($"unknown option '{unknown}'{UsageErrors.Suggestion(unknown, candidates)}; neither the recorder's nor the benchmark's (esp record --help lists both)");
        }
    }

    /// <summary>Benchmark options the recorder passes itself (results into the trace folder, the heap handshake).</summary>
    private static readonly IReadOnlyList<string> RecorderSetsForTheBenchmark = [BenchmarkArgs.JsonFlag, BenchmarkArgs.CsvFlag, .. HeapRequest.RecorderOwned];

    private static BenchmarkRequest RequestOf(BenchmarkOptions parsed, IReadOnlyList<string> args)
    {
        var given = new ArgReader(args, BenchmarkOptions.Flags);
        return new BenchmarkRequest
        {
            FirstCall = parsed.Test == TestMode.FirstCall,
            Serializers = [.. parsed.Serializers.Select(s => s.Name)],
            AppContextSwitches = parsed.AppContext,
            Heap = parsed.Heap is { } heap ? new HeapRequest([.. heap.Serializers.Select(s => s.Name)], heap.Objects) : null,
            RecorderOwned = [.. RecorderSetsForTheBenchmark.Where(o => given.Has(o[2..]))],
        };
    }

    /// <summary>The benchmark's options as its help lists them.</summary>
    public static IReadOnlyList<string> BenchmarkOptionNames() =>
        [.. OptionName().Matches(BenchmarkOptions.Usage).Select(m => m.Value).Distinct(StringComparer.Ordinal)];

    private static string BenchmarkOptionsHelp()
    {
        var usage = BenchmarkOptions.Usage;
        var options = usage[(usage.IndexOf("Options:", StringComparison.Ordinal) + "Options:".Length)..].Trim('\r', '\n');
        return string.Join(Environment.NewLine, options.Split('\n').Select(l => l.TrimEnd('\r')));
    }

    private enum Sampler { Auto, On, Off }

    [GeneratedRegex(@"(?<![\w-])--[a-z][a-z0-9-]*")]
    private static partial Regex OptionName();
}
