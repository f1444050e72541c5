using System.Collections.Concurrent;
using BenchmarkDotNet.Analysers;
using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Engines;
using BenchmarkDotNet.Environments;
using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Loggers;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using BenchmarkDotNet.Toolchains.InProcess.Emit;
using BenchmarkDotNet.Toolchains.InProcess.NoEmit;
using BenchmarkDotNet.Validators;

namespace EtwSerializerProfiler.BenchmarkDotNet;

/// <summary>
/// esp as a BenchmarkDotNet diagnoser. BenchmarkDotNet runs each benchmark once more after its measured launches
/// (<see cref="RunMode.ExtraRun"/>, "Run, Diagnostic"), so the summary's own figures stay untraced. In that run esp
/// attaches to the benchmark's process as its measured iterations begin (<see cref="CaseRecording"/>: the process
/// waits for the host at each signal), records them with the same sessions as `esp record --pid`, and answers from
/// the trace (<see cref="CaseAnswer"/>): the columns of <see cref="EspMetrics"/>, the top cause, and a trace folder per
/// benchmark for `esp analyze`.
/// </summary>
public sealed class EspDiagnoser : IDiagnoser
{
#if NET10_0_OR_GREATER
    private readonly ConcurrentDictionary<BenchmarkCase, CaseRecording> _recordings = new();
    private readonly List<CaseAnswer> _answers = [];
#endif
    private readonly bool _kernelSession;

    /// <summary>The kernel session (perf) beside EventPipe wherever perf works; EventPipe alone elsewhere.</summary>
    public EspDiagnoser() : this(kernelSession: true) { }

    /// <param name="kernelSession">
    /// False: EventPipe alone, as where perf is missing or not permitted (CPU/op from its safe-point sampler, said once
    /// in the log); true: perf beside it wherever perf works.
    /// </param>
    public EspDiagnoser(bool kernelSession) => _kernelSession = kernelSession;

    public IEnumerable<string> Ids => ["Esp"];
    public IEnumerable<IExporter> Exporters => [];
    public IEnumerable<IAnalyser> Analysers => [];

    public RunMode GetRunMode(BenchmarkCase benchmarkCase) => OnThisHost ? RunMode.ExtraRun : RunMode.None;

    /// <summary>The recorder and analyzer run in the host, and they need .NET 10; the jobs may name any .NET 5 or later.</summary>
#if NET10_0_OR_GREATER
    private const bool OnThisHost = true;
#else
    private const bool OnThisHost = false;
#endif

#if NET10_0_OR_GREATER
    public void Handle(HostSignal signal, DiagnoserActionParameters parameters)
    {
        switch (signal)
        {
            // The warm-up iterations ran untraced: they are what the measured ones are held to (CaseAnswer.TracingCost).
            case HostSignal.BeforeActualRun:
                _recordings[parameters.BenchmarkCase] = CaseRecording.Start(parameters, _kernelSession);
                break;
            // The process waits for this signal's answer: the sessions stop while it lives, so the rundown names its code.
            case HostSignal.AfterActualRun:
            case HostSignal.AfterProcessExit:
                if (_recordings.TryGetValue(parameters.BenchmarkCase, out var recording)) recording.Stop();
                break;
        }
    }

    public IEnumerable<Metric> ProcessResults(DiagnoserResults results)
    {
        if (!_recordings.TryRemove(results.BenchmarkCase, out var recording)) return [];
        var answer = CaseAnswer.From(recording, results);
        lock (_answers) _answers.Add(answer);
        TopCauseColumn.Set(results.BenchmarkCase, answer.TopCause);
        return answer.Metrics();
    }

    /// <summary>After the summary: each benchmark's verdict, as `esp analyze` prints it, and how to open its folder.</summary>
    public void DisplayResults(ILogger logger)
    {
        List<CaseAnswer> answers;
        lock (_answers) answers = [.. _answers];
        if (answers.Count == 0) return;
        logger.WriteLineHeader("// * esp: why each benchmark takes its time (the diagnostic run, traced) *");
        if (CaseAnswer.SamplingNote(answers) is { } note) logger.WriteLineHint(note);
        foreach (var answer in answers)
        {
            foreach (var line in answer.Lines) logger.WriteLineInfo(line);
            logger.WriteLineInfo($"  esp analyze \"{answer.Folder}\"   (or --html report.html)");
        }
    }
#else
    public void Handle(HostSignal signal, DiagnoserActionParameters parameters) { }
    public IEnumerable<Metric> ProcessResults(DiagnoserResults results) => [];
    public void DisplayResults(ILogger logger) { }
#endif

    public IEnumerable<ValidationError> Validate(ValidationParameters validationParameters)
    {
        // One line, and the benchmarks still run, untraced: the host's runtime is the user's project's framework choice.
        if (!OnThisHost && validationParameters.Benchmarks.FirstOrDefault() is { } first)
            yield return new ValidationError(false, $"EspDiagnoser needs a .NET 10 host (this one runs the package's net8.0 build, on .NET {Environment.Version}): "
                + "the benchmarks run without esp's columns; run the host on net10.0 (dotnet run -f net10.0), its jobs may name .NET 8", first);
        foreach (var benchmark in validationParameters.Benchmarks)
        {
            var job = benchmark.Job;
            if (job.Environment.Runtime is ClrRuntime or MonoRuntime)
                yield return new ValidationError(true, $"EspDiagnoser traces .NET 5 or later through its diagnostic port, not {job.Environment.Runtime.Name}", benchmark);
            if (job.Infrastructure.Toolchain is InProcessEmitToolchain or InProcessNoEmitToolchain)
                yield return new ValidationError(true, "EspDiagnoser attaches to the benchmark's own process: it needs a toolchain that starts one (the default)", benchmark);
        }
    }
}
