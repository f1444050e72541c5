using System.CommandLine;
using EtwSerializerProfiler.Analyzer.Export;
using EtwSerializerProfiler.Analyzer.Heap;
using EtwSerializerProfiler.Cli.Terminal;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Cli.Commands;

/// <summary>`esp heap SNAPSHOT`: heap snapshots from `esp record --heap`, the deserialized graph against the original.</summary>
public static class HeapVerb
{
    public const string Name = "heap";

    public static Command Create(CommonOptions common, IConsole console)
    {
        var snapshot = new Argument<string>("SNAPSHOT") { Description = "a trace folder recorded with --heap, or one heap-*.dmp" };
        var list = new Option<bool>("--list") { Description = "list the folder's snapshots (taken or not) without reading them" };
        var format = CommonOptions.Format(ReportKind.Heap);
        var top = OptionTypes.Int("--top", "types and duplicate strings shown per snapshot", 10, min: 1, max: 100_000);
        var command = new Command(Name, "heap snapshots (record --heap): deserialized graph vs original by type, size, duplicate strings")
        {
            snapshot, list, format, common.Out, common.Serializers, top,
        }.WithArgumentsMessage("heap needs exactly one SNAPSHOT (a trace folder recorded with --heap, or a .dmp)");
        command.SetAction((parse, cancel) => CommandRunner.RunAsync(Name, console, () => Task.FromResult(Run(
            parse.GetValue(snapshot)!, parse.GetValue(list), parse.GetValue(format), parse.GetValue(common.Out), parse.GetValue(common.Serializers)!, parse.GetValue(top),
            console, cancel)), cancel));
        return command;
    }

    public static int Run(string path, bool list, TableFormat format, string? outPath, IReadOnlyList<string> serializers, int top, IConsole console, CancellationToken cancel)
    {
        var plan = Exporters.Select(list ? ReportKind.HeapList : ReportKind.Heap, format, outPath);
        var input = HeapSnapshotInput.Open(path);
        bool Selected(string? serializer) => serializers.Count == 0 || serializers.Contains(serializer ?? "", StringComparer.OrdinalIgnoreCase);
        var notTaken = input.NotTaken.Where(n => Selected(n.Serializer)).ToList();
        ReportDocument report;
        if (list)
        {
            report = HeapReport.ListDocument(input, Selected);
        }
        else
        {
            var analyses = new List<HeapSnapshotAnalysis>();
            using (var progress = console.StartProgress(live: true))
                foreach (var dump in input.Dumps.Where(d => d.Recorded is null || Selected(d.Recorded.Serializer)))
                {
                    cancel.ThrowIfCancellationRequested();
                    progress.Report($"reading {Path.GetFileName(dump.Path)} ({new FileInfo(dump.Path).Length / 1048576.0:F0} MB)...");
                    var analysis = HeapSnapshotAnalyzer.Analyze(dump.Path, dump.Recorded);
                    if (Selected(analysis.Snapshot.Serializer)) analyses.Add(analysis);
                }
            if (analyses.Count == 0 && notTaken.Count == 0)
                throw new BadInputException($"{input.DisplayName}: no heap snapshots of {string.Join(", ", serializers)}");
            report = HeapReport.Document(input.DisplayName, analyses, notTaken, top);
        }
        plan.ExportReport(report, console.Out, new LineProgress(console.Error));
        // Failed or missing snapshots are a result, but not a success: scripts should notice.
        return notTaken.Count > 0 || (input.Dumps.Count == 0 && !list) ? ExitCodes.Failed : ExitCodes.Ok;
    }
}
