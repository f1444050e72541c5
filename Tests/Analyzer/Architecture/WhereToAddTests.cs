using EtwSerializerProfiler.Analyzer.Stacks;
using System.Reflection;
using System.Text.RegularExpressions;
using System.Text.Json.Nodes;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.CallTrees;
using EtwSerializerProfiler.Analyzer.Diff;
using EtwSerializerProfiler.Analyzer.Export;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.Processing.Sources;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Analyzer.Samples;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Analyzer.Findings;
using EtwSerializerProfiler.Tests.Support;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Tests.Analyzer.Architecture;

/// <summary>
/// docs/architecture.md's "where to add" rows, done the way they say. A CPU source is added from this assembly as
/// its row says (one <see cref="ICpuSource"/> class, its line in the registration) and must then supply a real
/// trace's CPU columns. An output format's steps are checked on every exporter, and on one added here that took
/// none of them: a step the row leaves out, or an exporter that skipped one, fails here with the step's name.
/// A column is one <see cref="CaseColumn"/> defined here, listed beside the default ones: every format shows it.
/// </summary>
public sealed partial class WhereToAddTests
{
    [GeneratedRegex("`([^`\n]+)`")]
    private static partial Regex CodeSpan();

    /// <summary>The code spans of the "where to add" row that starts with <paramref name="what"/>.</summary>
    private static HashSet<string> RowNames(string what)
    {
        var doc = File.ReadAllText(Path.Combine(Repo.Root, "docs", "architecture.md"));
        var row = doc.Split('\n').Single(l => l.StartsWith("| " + what + " |", StringComparison.Ordinal));
        return [.. CodeSpan().Matches(row).Select(m => m.Groups[1].Value)];
    }

    [Fact]
    public void A_cpu_source_added_as_the_row_says_supplies_a_real_traces_cpu()
    {
        // The row's steps: the class, the registration, and where a test registers its own.
        var row = RowNames("a CPU source");
        Assert.Subset(row, new HashSet<string> { "ICpuSource", "Analyzer/Processing/Sources/", "CpuSources.Default", "TraceAnalyzer.CpuSources" });
        Assert.Contains(nameof(CpuSources.Default), typeof(CpuSources).GetProperties().Select(p => p.Name));

        var dir = Repo.NewTempDir("where-to-add");
        try
        {
            var zip = Repo.CopyGoldenRecording("eventpipe-only", dir);
            FakeCpu? fake = null;
            CpuSourceFactory open = trace => fake = new FakeCpu();
            TraceAnalysis Analyze(IReadOnlyList<CpuSourceFactory> sources)
            {
                using var input = TraceInput.Open(zip);
                return new TraceAnalyzer(new AnalyzerOptions()) { CpuSources = sources }.Analyze(input);
            }

            // Not registered: the trace keeps its own source.
            var before = Analyze(CpuSources.Default);
            Assert.Null(fake);
            Assert.NotEqual(FakeCpu.Line, before.Trace.SamplingSource);

            // Registered first: it is the trace's source, and every stage takes its samples as they are.
            var analysis = Analyze([open, .. CpuSources.Default]);
            Assert.NotNull(fake);
            Assert.True(fake.RunStarts > 0, "the fake's subscription saw no run events");
            Assert.Equal(FakeCpu.Line, analysis.Trace.SamplingSource);
            Assert.Equal(FakeCpu.Reason, analysis.Trace.CpuBiasReason);
            Assert.Equal(fake.Kind, analysis.Trace.CpuSource);
            Assert.Equal(before.Runs.Count, analysis.Runs.Count);
            Assert.NotEmpty(analysis.Runs);
            foreach (var run in analysis.Runs)
            {
                // The truth is what the fake emitted: one sample per millisecond of the worker, inside the run's window.
                // A run shorter than half a period gets none.
                var emitted = fake.Emitted[run.Key];
                Assert.Equal(emitted, run.Samples);
                Assert.Equal(emitted * FakeCpu.PeriodMs, run.CpuMs, 6);
                // EventPipe's sampler, registered after it, is charged beside it to show its bias.
                Assert.NotNull(run.EventPipeCpu);
            }
            Assert.True(fake.Emitted.Values.Sum() > analysis.Runs.Count, $"only {fake.Emitted.Values.Sum()} samples emitted");
            Assert.Equal(analysis.Runs.Count(r => r.Samples > 0), fake.ChargedRuns);
        }
        finally
        {
            FileCleanup.TryDeleteDirectory(dir);
        }
    }

    /// <summary>
    /// A CPU source of this assembly: it counts the run events in the pass, and then samples each run's worker once a
    /// millisecond inside its window (on-CPU time, one period each). Everything it must say is in its one class.
    /// </summary>
    private sealed class FakeCpu : ICpuSource
    {
        public const double PeriodMs = 1.0;
        public const string Line = "fake sampler: one sample per millisecond of each run's worker";
        public const string Reason = "the fake sampler knows nothing of the thread's own clock";
        private EventStacks? _stacks;

        public int RunStarts { get; private set; }
        public Dictionary<RunKey, int> Emitted { get; } = [];
        public int ChargedRuns { get; private set; }

        public CpuSourceKind Kind => CpuSourceKind.EtwProfile;
        public string BiasReason => Reason;

        public void Subscribe(TraceEventDispatcher source, PassSamples pass)
        {
            _stacks = pass.Stacks;
            source.AllEvents += e =>
            {
                if (e.ProviderGuid == RunEvents.ProviderGuid && (int)e.ID == RunEvents.RunStartId) RunStarts++;
            };
        }

        public CpuPlan Plan(CpuCharge cpu)
        {
            var samples = new List<CpuSample>();
            foreach (var run in cpu.Analysis.Runs)
            {
                var n = 0;
                for (var t = run.StartMs + PeriodMs / 2; t < run.EndMs; t += PeriodMs, n++)
                    samples.Add(new CpuSample(run.WorkerThreadId, t, SampleStream.NoStack, InGc: false, t, PeriodMs));
                Emitted[run.Key] = n;
            }
            samples.Sort((a, b) => a.TimeMs.CompareTo(b.TimeMs));
            return new CpuPlan(new SampleStream(Kind, samples, _stacks!, PeriodMs));
        }

        public void Charged(RunDraft run, CpuAccount charged) => ChargedRuns++;

        public void Describe(CpuCharge cpu, SampleCharges charged) =>
            cpu.Analysis.Trace = cpu.Analysis.Trace with { SamplingSource = Line, ObservedSampleIntervalMs = PeriodMs };
    }

    [Fact]
    public void A_collector_added_as_the_row_says_counts_a_real_traces_runs()
    {
        // The row's steps: the class, its line in the registration, and where a test registers its own.
        var row = RowNames("a collector (an event family counted per run and thread)");
        Assert.Subset(row, new HashSet<string> { "IPassStage", "Analyzer/Processing/Stages/", "PassStages.Default", "TraceAnalyzer.Stages" });

        var dir = Repo.NewTempDir("where-to-add");
        try
        {
            var zip = Repo.CopyGoldenRecording("eventpipe-only", dir);
            TraceAnalysis Analyze(IReadOnlyList<PassStageFactory> stages)
            {
                using var input = TraceInput.Open(zip);
                return new TraceAnalyzer(new AnalyzerOptions()) { Stages = stages }.Analyze(input);
            }

            // Registered: it sees the pass's events and runs, and counts what the built-in collector counts.
            FakeAllocations? fake = null;
            var analysis = Analyze([.. PassStages.Default, () => fake = new FakeAllocations()]);
            Assert.NotNull(fake);
            Assert.True(fake.Finished, "the fake stage was not finished");
            Assert.Contains(analysis.Runs, r => r.Counters.AllocatedBytes > 0);
            foreach (var run in analysis.Runs)
                Assert.Equal(run.Counters.AllocatedBytes, fake.Bytes.GetValueOrDefault(run.Key));

            // Its line taken out: nothing else counts allocations.
            var without = Analyze([.. PassStages.Default.Where(make => make() is not AllocationStage)]);
            Assert.Equal(analysis.Runs.Count, without.Runs.Count);
            Assert.All(without.Runs, r => Assert.Equal(0, r.Counters.AllocatedBytes));
        }
        finally
        {
            FileCleanup.TryDeleteDirectory(dir);
        }
    }

    /// <summary>A collector of this assembly: allocation ticks' bytes by run, in its one class.</summary>
    private sealed class FakeAllocations : IPassStage
    {
        public Dictionary<RunKey, long> Bytes { get; } = [];
        public bool Finished { get; private set; }

        public void Subscribe(TraceEventDispatcher source, IPass pass) =>
            source.Clr.GCAllocationTick += e =>
            {
                if (pass.RunOf(e) is { } run) Bytes[run.Key] = Bytes.GetValueOrDefault(run.Key) + e.AllocationAmount64;
            };

        public void Finish(IPass pass) => Finished = true;
    }

    /// <summary>The steps of an output format (the row's names), and whether an exporter took each.</summary>
    private static readonly (string Step, Func<IExporter, IReadOnlyList<IExporter>, bool> Taken)[] s_exporterSteps =
    [
        ("Exporters.All", (e, all) => all.Any(x => x.GetType() == e.GetType())),
        ("ReportKind", (e, _) => ReportKind.All.Any(k => k.Has(e))),
        ("TableFormat", (e, all) => e is not DocumentExporter
            || Enum.GetValues<TableFormat>().Any(f => f.ToString().Equals(e.Name, StringComparison.OrdinalIgnoreCase) && Exporters.ForFormat(f).GetType() == e.GetType())),
        ("Exporters.Select", (e, all) => e is DocumentExporter || SelectParameterFinds(e)),
    ];

    /// <summary>A file exporter is chosen by a path parameter of <see cref="Exporters.Select"/> of its own.</summary>
    private static bool SelectParameterFinds(IExporter exporter)
    {
        if (ReportKind.All.FirstOrDefault(k => k.Has(exporter)) is not { } kind) return false;
        var select = typeof(Exporters).GetMethod(nameof(Exporters.Select))!;
        foreach (var p in select.GetParameters().Where(p => p.ParameterType == typeof(string) && p.Name != "outPath"))
        {
            var args = select.GetParameters().Select(q => q == p ? "x" : q.ParameterType == typeof(ReportKind) ? kind : q.ParameterType == typeof(TableFormat) ? (object?)Exporters.DefaultFormat : null).ToArray();
            try
            {
                if (((ExportPlan)select.Invoke(null, args)!).Files.Any(f => f.Exporter.GetType() == exporter.GetType())) return true;
            }
            catch (TargetInvocationException ex) when (ex.InnerException is UsageException) { } // this kind refuses the option: try the next
        }
        return false;
    }

    private static IEnumerable<string> MissingSteps(IExporter exporter, IReadOnlyList<IExporter> all) =>
        s_exporterSteps.Where(s => !s.Taken(exporter, all)).Select(s => s.Step);

    [Fact]
    public void An_output_format_takes_every_step_its_row_names()
    {
        var row = RowNames("an output format");
        // The row names every step this test checks, and the two kinds of exporter.
        Assert.Subset(row, new HashSet<string>([.. s_exporterSteps.Select(s => s.Step), "DocumentExporter", "IExporter", "Common/Text/TextTable.cs"]));
        foreach (var exporter in Exporters.All)
            Assert.True(!MissingSteps(exporter, Exporters.All).Any(), $"{exporter.Name} misses {string.Join(", ", MissingSteps(exporter, Exporters.All))}");
        // Every --format value has its exporter.
        foreach (var format in Enum.GetValues<TableFormat>()) Assert.NotNull(Exporters.ForFormat(format));

        // One exporter class and nothing else: each step is missing, and named.
        Assert.Equal(["Exporters.All", "ReportKind", "TableFormat"], MissingSteps(new FakeFormat(), Exporters.All));
        Assert.Equal(["Exporters.All", "ReportKind", "Exporters.Select"], MissingSteps(new FakeFile(), Exporters.All));
        // Listed: that step is taken, the others still missing.
        Assert.Equal(["ReportKind", "TableFormat"], MissingSteps(new FakeFormat(), [.. Exporters.All, new FakeFormat()]));
    }

    private sealed class FakeFormat : DocumentExporter
    {
        public override string Name => "fake";
        public override string Render(ReportDocument report) => "";
    }

    private sealed class FakeFile : IExporter
    {
        public string Name => "fakefile";
        public ExportTarget Target => ExportTarget.File;
        public void Export(ReportDocument report, TextWriter terminal, string? path, IProgress<string> progress) { }
    }

    /// <summary>
    /// A column of this assembly, and all it takes: one descriptor. The GC's suspension in µs per operation, a figure
    /// the runs have that no table showed; compared by esp diff.
    /// </summary>
    private static readonly CaseColumn s_suspend = new()
    {
        Header = "Suspend us",
        Name = "suspendUs",
        Of = r => r.GcSuspendMs * 1000,
        PerThreadOperation = true,
        Diff = true,
    };

    private static IEnumerable<RunAnalysis> SuspendRuns(params double[] suspendMs) =>
        suspendMs.Select((ms, i) => SyntheticRuns.Run("S", "deserialize", 10, i + 1, 2.0, set: r => r.GcSuspendMs = ms));

    [Fact]
    public void A_column_added_as_the_row_says_shows_in_every_format_and_the_diff()
    {
        var row = RowNames("a column");
        Assert.Subset(row, new HashSet<string> { "CaseColumn", "Model/CaseColumns.Default", "TraceAnalysis.Columns", "DiffSettings.Columns", "WhereToAddTests" });
        var plain = SyntheticRuns.Analysis(SuspendRuns(0.2, 0.3));
        var analysis = plain with { Columns = [.. CaseColumns.Default, s_suspend] };

        // The case's figure is the mean per operation over the measured runs: 250 µs.
        foreach (var format in new[] { TableFormat.Text, TableFormat.Markdown })
        {
            var text = AnalysisReport.Render(analysis, format);
            Assert.Contains("Suspend us", text, StringComparison.Ordinal);
            Assert.Contains("250.0", text, StringComparison.Ordinal);
            Assert.DoesNotContain("Suspend us", AnalysisReport.Render(plain, format), StringComparison.Ordinal);
        }
        var csv = AnalysisReport.Render(analysis, TableFormat.Csv).Split('\n');
        var column = Array.IndexOf(csv[0].Split(','), "suspendUs");
        Assert.True(column > 0, csv[0]);
        Assert.Equal(["200.000", "300.000"], csv.Skip(1).Where(l => l.Length > 0).Select(l => l.Split(',')[column]));
        var json = JsonNode.Parse(AnalysisReport.Render(analysis, TableFormat.Json))!;
        Assert.Equal([200.0, 300.0], json["runs"]!.AsArray().Select(r => (double)r!["suspendUs"]!));
        Assert.Equal(250.0, (double)json["serializers"]![0]!["suspendUs"]!, 9);
        var html = AnalysisReport.Document(analysis, stacks: new RunStacks { Profiles = [], GcPauses = [] }).Html!("report.html");
        Assert.Contains(">Suspend us<", html, StringComparison.Ordinal);
        Assert.Contains(">250.0<", html, StringComparison.Ordinal);

        // The diff compares it: a metric of each row, in every format.
        DiffSide Side(string path) => new(path, null, [], new Dictionary<string, string>(), []);
        var diff = TraceDiffer.Compute(Side("base"), SuspendRuns(0.2, 0.3), Side("trace"), SuspendRuns(0.4, 0.6), new DiffSettings { Columns = [.. CaseColumns.Default, s_suspend] });
        Assert.Equal(250, diff.Rows.Single().Metric("suspendUs").Delta!.Value, 9);
        foreach (var format in new[] { TableFormat.Text, TableFormat.Markdown })
            Assert.Contains("+250.0", DiffReport.Render(diff, format), StringComparison.Ordinal);
        Assert.Contains(",metric,suspendUs,", DiffReport.Render(diff, TableFormat.Csv), StringComparison.Ordinal);
        Assert.Equal(250, (double)JsonNode.Parse(DiffReport.Render(diff, TableFormat.Json))!["rows"]![0]!["metrics"]!["suspendUs"]!["delta"]!, 9);
        Assert.Contains(">Suspend us<", DiffReport.Document(diff).Html!(""), StringComparison.Ordinal);
        Assert.DoesNotContain("suspendUs", DiffReport.Render(TraceDiffer.Compute(Side("base"), SuspendRuns(0.2, 0.3), Side("trace"), SuspendRuns(0.4, 0.6)), TableFormat.Json), StringComparison.Ordinal);
    }
}
