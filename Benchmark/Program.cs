using EtwSerializerProfiler.Benchmark;
using EtwSerializerProfiler.Benchmark.Configuration;
using EtwSerializerProfiler.Benchmark.Output;
using EtwSerializerProfiler.Benchmark.Runs;
using EtwSerializerProfiler.Benchmark.Serializers;
using EtwSerializerProfiler.Common;

// First of all: a recorder that stops early (a full disk) sends Ctrl+C as soon as it can; until this handler is on,
// that signal ends the process without its results.
using var cancel = new CancellationTokenSource();
Console.CancelKeyPress += (_, e) => { e.Cancel = true; cancel.Cancel(); };
#if NET
// Started from a background shell, this process inherits SIGINT ignored and the runtime leaves it so: the recorder
// then sends SIGTERM (RecordedRuntime.Interrupt), which stops it the same way.
using var terminate = OperatingSystem.IsWindows() ? null
    : System.Runtime.InteropServices.PosixSignalRegistration.Create(System.Runtime.InteropServices.PosixSignal.SIGTERM, c => { c.Cancel = true; cancel.Cancel(); });
#endif

BenchmarkOptions options;
try
{
    options = BenchmarkOptions.Parse(args);
}
catch (UsageException ex)
{
    Console.Error.WriteLine($"error: {ex.Message}");
    return ExitCodes.Usage;
}
// Before any serializer runs: libraries read feature switches once, on first use.
if (AppContextSwitches.Apply(options.AppContext) is { } switchError)
{
    Console.Error.WriteLine($"error: {switchError}");
    return ExitCodes.Usage;
}
if (options.Help)
{
    Console.WriteLine(BenchmarkOptions.Usage);
    return ExitCodes.Ok;
}
if (options.List)
{
    var list = new TextTable("Serializers", ["Name", "Version", "Format", "Capabilities", "Status"]);
    foreach (var s in SerializerCatalog.All)
        list.AddRow(s.Name, s.Version, s.Format, s.Capabilities.ToString(), s.UnsupportedReason is null ? "ok" : "unsupported: " + s.UnsupportedReason);
    Console.Write(PlainText.Table(list));
    return ExitCodes.Ok;
}

foreach (var warning in BuildInfo.Warnings()) Console.Error.WriteLine(warning);

// Synchronous on purpose: Progress<T> posts to the thread pool, whose spinning workers would run during measured runs.
IProgress<string>? progress = options.Quiet ? null : new StderrProgress();
var started = DateTime.UtcNow;
var runner = Runner.For(options, progress);
var interrupted = false;
try { runner.Run(cancel.Token); } catch (OperationCanceledException) { interrupted = true; }
if (interrupted) runner.Errors.Add("interrupted by Ctrl+C: results are partial");

var results = new BenchmarkResults
{
    Runtime = BuildInfo.Runtime,
    OperatingSystem = BuildInfo.OperatingSystem,
    Configuration = BuildInfo.Configuration,
    DebuggerAttached = System.Diagnostics.Debugger.IsAttached,
    ProcessId = Environment.ProcessId,
    StartTimeUtc = started,
    CommandLine = string.Join(' ', args),
    AppContextSwitches = options.AppContext.Count == 0 ? null : options.AppContext.ToDictionary(),
    DynamicCodeSupported = System.Runtime.CompilerServices.RuntimeFeature.IsDynamicCodeSupported,
    GcGen0BudgetBytes = BuildInfo.Gen0BudgetBytes(),
    GcGen0SizeSetting = Environment.GetEnvironmentVariable("DOTNET_GCgen0size") ?? Environment.GetEnvironmentVariable("COMPlus_GCgen0size"),
    Runs = runner.Results,
    Warmups = runner.Warmups,
    Unsupported = runner.Unsupported,
    Errors = runner.Errors,
    HeapSnapshots = runner.HeapSnapshots,
    TracingCost = runner.TracingCostCases,
    TracingCostProblem = runner.TracingCostProblem,
    TracingCostSham = options.TracingCostSham && runner.TracingCostCases is not null ? true : null,
};
// Partial results are still written: a long run interrupted near the end should not lose what it measured.
// A full disk costs one line each, never an unhandled exception; the JSON goes to a fallback the recorder picks up.
if (options.JsonPath is not null) results.SaveOrFallBack(options.JsonPath, Console.Error);
if (options.CsvPath is not null)
{
    try { File.WriteAllText(options.CsvPath, ResultsReport.RunsCsv(results)); }
    catch (IOException ex)
    {
        Console.Error.WriteLine($"results not written to {options.CsvPath}: {ex.Message}");
        FileCleanup.TryDelete(options.CsvPath); // no empty CSV left to mislead
    }
}
if (!options.Quiet) Console.Write(PlainText.Table(ResultsReport.Summary(results)));
else foreach (var line in ResultsReport.Problems(results)) Console.WriteLine(line);
// Last, with everything written: the ETW recorder's rundown needs this process alive to name its code.
if (options.ExitPipe is { } exitPipe && RecorderExitGate.WaitForRecorder(exitPipe, ExitHandshake.ConnectTimeout, ExitHandshake.BenchmarkWaitLimit) is { } exitWarning)
    Console.Error.WriteLine($"warning: {exitWarning}");
return interrupted ? ExitCodes.Interrupted : runner.Errors.Count > 0 ? ExitCodes.Failed : ExitCodes.Ok;

/// <summary>Writes progress lines immediately on the calling thread (between runs, never inside one).</summary>
internal sealed class StderrProgress : IProgress<string>
{
    public void Report(string value) => Console.Error.WriteLine(value);
}
