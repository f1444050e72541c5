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
    private readonly ConcurrentDictionary<BenchmarkCase, CaseRecording> _recordings = new();
    private readonly List<CaseAnswer> _answers = [];

    public IEnumerable<string> Ids => ["Esp"];
    public IEnumerable<IExporter> Exporters => [];
    public IEnumerable<IAnalyser> Analysers => [];

    public RunMode GetRunMode(BenchmarkCase benchmarkCase) => RunMode.ExtraRun;

    public void Handle(HostSignal signal, DiagnoserActionParameters parameters)
    {
        switch (signal)
        {
            // The warm-up iterations ran untraced: they are what the measured ones are held to (CaseAnswer.TracingCost).
            case HostSignal.BeforeActualRun:
                _recordings[parameters.BenchmarkCase] = CaseRecording.Start(parameters);
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
        foreach (var line in answers.Select(a => a.SamplingNote).OfType<string>().Distinct()) logger.WriteLineHint(line);
        foreach (var answer in answers)
        {
            foreach (var line in answer.Lines) logger.WriteLineInfo(line);
            logger.WriteLineInfo($"  esp analyze \"{answer.Folder}\"   (or --html report.html)");
        }
    }

    public IEnumerable<ValidationError> Validate(ValidationParameters validationParameters)
    {
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
