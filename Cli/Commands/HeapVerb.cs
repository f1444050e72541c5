using EtwSerializerProfiler.Analyzer.Heap;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Cli.Commands;

public sealed class HeapVerb : ICommand
{
    public string Name => "heap";
    public string Summary => "heap snapshots (record --heap): deserialized graph vs original by type, size, duplicate strings";

    private const string Usage = """
        esp heap SNAPSHOT [options]      SNAPSHOT: a trace folder recorded with --heap, or one heap-*.dmp

          --list                            list the folder's snapshots (taken or not) without reading them
          --format text|csv|json|markdown   output format (default text; csv is the summary table)
          --out F                           write to F instead of the terminal
          --serializers a,b                 only these serializers' snapshots
          --top N                           types and duplicate strings shown per snapshot (default 10)
        """;

    public Task<int> RunAsync(IReadOnlyList<string> args, CancellationToken cancel)
    {
        var r = new ArgReader(args, new HashSet<string>(StringComparer.OrdinalIgnoreCase) { "help", "h", "list" });
        if (r.Flag("help") || r.Flag("h")) { Console.WriteLine(Usage); return Task.FromResult(ExitCodes.Ok); }
        var format = r.Enum("format", TableFormat.Text);
        var outPath = r.String("out");
        var serializers = r.List("serializers");
        var top = r.Int("top", 10, min: 1, max: 100_000);
        var list = r.Flag("list");
        r.RejectUnknown("heap");
        if (r.Positional.Count != 1) throw new UsageException("heap needs exactly one SNAPSHOT (a trace folder recorded with --heap, or a .dmp)");

        var input = HeapSnapshotInput.Open(r.Positional[0]);
        bool Selected(string? serializer) => serializers.Count == 0 || serializers.Contains(serializer ?? "", StringComparer.OrdinalIgnoreCase);
        var notTaken = input.NotTaken.Where(n => Selected(n.Serializer)).ToList();
        string text;
        if (list)
        {
            if (format == TableFormat.Json) throw new UsageException("heap --list supports --format text, csv or markdown (the manifest's heapSnapshots is the JSON)");
            text = ListTable(input, Selected).Render(format);
        }
        else
        {
            var analyses = new List<HeapSnapshotAnalysis>();
            foreach (var dump in input.Dumps.Where(d => d.Recorded is null || Selected(d.Recorded.Serializer)))
            {
                cancel.ThrowIfCancellationRequested();
                CommandRunner.StderrProgress.Report($"reading {Path.GetFileName(dump.Path)} ({new FileInfo(dump.Path).Length / 1048576.0:F0} MB)...");
                var analysis = HeapSnapshotAnalyzer.Analyze(dump.Path, dump.Recorded);
                if (Selected(analysis.Snapshot.Serializer)) analyses.Add(analysis);
            }
            if (analyses.Count == 0 && notTaken.Count == 0)
                throw new BadInputException($"{input.DisplayName}: no heap snapshots of {string.Join(", ", serializers)}");
            text = HeapReport.Render(input.DisplayName, analyses, notTaken, format, top);
        }
        if (outPath is null) Console.Write(text);
        else
        {
            File.WriteAllText(outPath, text);
            Console.Error.WriteLine($"wrote {outPath}");
        }
        // Failed or missing snapshots are a result, but not a success: scripts should notice.
        return Task.FromResult(notTaken.Count > 0 || (input.Dumps.Count == 0 && !list) ? ExitCodes.Failed : ExitCodes.Ok);
    }

    private static TextTable ListTable(HeapSnapshotInput input, Func<string?, bool> selected)
    {
        var table = new TextTable($"Heap snapshots in {input.DisplayName}", ["File", "Serializer", "Data", "N", "Run", "Status", "Dump MB", "Error"]);
        foreach (var d in input.Dumps.Where(d => d.Recorded is null || selected(d.Recorded.Serializer)))
        {
            var s = d.Recorded;
            table.AddRow(Path.GetFileName(d.Path), s?.Serializer ?? "?", s?.Data ?? "?", s is null ? "-" : Fmt.Int(s.Objects), s is null ? "-" : Fmt.Int(s.Run),
                s?.Status?.ToString() ?? "Taken", Fmt.Mb(new FileInfo(d.Path).Length), "");
        }
        foreach (var s in input.NotTaken.Where(n => selected(n.Serializer)))
            table.AddRow("-", s.Serializer, s.Data, Fmt.Int(s.Objects), Fmt.Int(s.Run), s.Status?.ToString() ?? "?", "-", s.Error ?? "");
        return table;
    }
}
