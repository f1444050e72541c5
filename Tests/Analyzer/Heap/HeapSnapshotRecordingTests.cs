using System.Text.Json;
using EtwSerializerProfiler.Analyzer.Heap;
using EtwSerializerProfiler.Benchmark.Data;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Heap;

/// <summary>
/// Real heap snapshots: `esp record --heap` against the real benchmark, real dumps written by the runtime, read back
/// with ClrMD. Small N and the gc profile keep each recording to a few seconds; the dumps are deleted afterwards.
/// </summary>
[EndToEnd]
public sealed class HeapSnapshotRecordingTests
{
    private const int Objects = 200;

    /// <summary>
    /// How far the dump's graph walk may be from GC.GetTotalMemory(true) around the same deserialize: 5% or 16 KB,
    /// whichever is larger. GetTotalMemory also sees what the serializer keeps on the side (pooled buffers, caches)
    /// and what an unrelated collection frees; measured across every serializer at N=1,000 the gap stayed under 9 KB.
    /// </summary>
    private static long Tolerance(long bytes) => Math.Max(16 * 1024, bytes / 20);

    private static readonly string[] Serializers = ["System.Text.Json", "Google.Protobuf"];

    [Fact]
    public async Task A_serializer_that_keeps_references_brings_the_shared_title_back_as_one_instance()
    {
        var dir = Repo.NewTempDir("heapref");
        try
        {
            const string name = "DataContract.References";
            var (exit, folder, output) = await Recording.RecordAsync(Path.Combine(dir, "t"),
            [
                "--profile", "gc", "--data", "sharedstrings", "--n", Objects.ToString(System.Globalization.CultureInfo.InvariantCulture),
                "--warmup", "0", "--runs", "1", "--ops", "1", "--test", "deserialize", "--serializers", name, "--heap", name, "--quiet",
            ]);
            Assert.True(exit == ExitCodes.Ok, output);
            var dump = Assert.Single(HeapSnapshotInput.Open(folder.Path).Dumps);
            var a = HeapSnapshotAnalyzer.Analyze(dump.Path, dump.Recorded);
            Assert.Equal(Objects, a.Types.Single(t => t.Type.EndsWith(nameof(SharedTitleBook), StringComparison.Ordinal)).DeserializedCount);
            Assert.Equal(1, a.Deserialized.DistinctStrings);
            Assert.Equal(1, a.Deserialized.Strings); // N books, one title instance: identity kept
            Assert.Equal(0, a.Deserialized.DuplicateStringBytes);
            var measured = Recording.Results(folder).HeapSnapshots!.Single().DeserializedInProcessBytes!.Value;
            Assert.True(Math.Abs(a.Deserialized.Bytes - measured) <= Tolerance(measured), $"dump {a.Deserialized.Bytes:N0} B vs GC.GetTotalMemory {measured:N0} B");
        }
        finally
        {
            FileCleanup.TryDeleteDirectory(dir);
        }
    }

    [Fact]
    public async Task Shared_title_is_one_instance_in_the_original_and_one_per_book_after_serializers_without_identity()
    {
        var dir = Repo.NewTempDir("heap");
        try
        {
            var (exit, folder, output) = await Recording.RecordAsync(Path.Combine(dir, "t"),
            [
                "--profile", "gc", "--data", "sharedstrings", "--n", Objects.ToString(System.Globalization.CultureInfo.InvariantCulture),
                "--warmup", "0", "--runs", "1", "--ops", "1", "--test", "deserialize", "--serializers", string.Join(',', Serializers), "--heap", string.Join(',', Serializers), "--quiet",
            ]);
            Assert.True(exit == ExitCodes.Ok, output);

            // The manifest says which run each dump belongs to; results.json has the in-process side.
            var manifest = TraceManifest.Load(folder.Manifest);
            Assert.NotNull(manifest.HeapSnapshots);
            Assert.Equal(Serializers, manifest.HeapSnapshots.Select(h => h.Serializer));
            Assert.All(manifest.HeapSnapshots, h =>
            {
                Assert.Equal(HeapSnapshotStatus.Taken, h.Status);
                Assert.Equal("deserialize", h.Operation);
                Assert.Equal(nameof(SharedStringShelf), h.Data);
                Assert.Equal(Objects, h.Objects);
                Assert.Equal(1, h.Run); // one past the single measured run
                Assert.Equal(manifest.ChildProcessId, h.ProcessId);
                Assert.True(File.Exists(Path.Combine(folder.Path, h.File!)), h.File);
            });
            var inProcess = Recording.Results(folder).HeapSnapshots!;
            Assert.Equal(Serializers, inProcess.Select(h => h.Serializer));

            var input = HeapSnapshotInput.Open(folder.Path);
            Assert.Equal(2, input.Dumps.Count);
            Assert.Empty(input.NotTaken);
            foreach (var dump in input.Dumps)
            {
                var a = HeapSnapshotAnalyzer.Analyze(dump.Path, dump.Recorded);
                var name = a.Snapshot.Serializer;
                var titleBytes = a.Types.Single(t => t.Type == "System.String").OriginalBytes;
                Assert.InRange(titleBytes, 2 * DataFactory.SharedTitleLength, 2 * DataFactory.SharedTitleLength + 32);

                // The benchmark's graph: 200 books, one title instance.
                Assert.Equal(Objects, a.Types.Single(t => t.Type.EndsWith(nameof(SharedTitleBook), StringComparison.Ordinal)).OriginalCount);
                Assert.Equal(1, a.Original.Strings);
                Assert.Equal(1, a.Original.DistinctStrings);
                Assert.Equal(0, a.Original.DuplicateStringBytes);

                // The serializer's graph: same 200 books, one title per book, 199 of them waste.
                Assert.Equal(Objects, a.Types.Single(t => t.Type.EndsWith(nameof(SharedTitleBook), StringComparison.Ordinal)).DeserializedCount);
                Assert.Equal(Objects, a.Deserialized.Strings);
                Assert.Equal(1, a.Deserialized.DistinctStrings);
                Assert.Equal((Objects - 1) * titleBytes, a.Deserialized.DuplicateStringBytes);
                var duplicate = Assert.Single(a.DuplicateStrings);
                Assert.Equal(("deserialized", DataFactory.SharedTitleLength, (long)Objects), (duplicate.Graph, duplicate.Length, duplicate.Instances));
                Assert.Equal(0, a.SharedObjects);

                // The dump's walk agrees with what the process measured around the same deserialize.
                var measured = a.Snapshot.DeserializedInProcessBytes!.Value;
                Assert.True(Math.Abs(a.Deserialized.Bytes - measured) <= Tolerance(measured),
                    $"{name}: graph walk {a.Deserialized.Bytes} B vs GC.GetTotalMemory delta {measured} B (tolerance {Tolerance(measured)} B)");
                var original = a.Snapshot.OriginalInProcessBytes!.Value;
                Assert.True(Math.Abs(a.Original.Bytes - original) <= Tolerance(original),
                    $"{name}: original walk {a.Original.Bytes} B vs GC.GetTotalMemory delta {original} B");
                Assert.Equal(inProcess.Single(h => h.Serializer == name).DeserializedInProcessBytes, measured);
            }

            // The verb over the same folder: JSON a script can read.
            var json = ProcessRunner.Dotnet(Path.Combine(Repo.BinDir, "esp.dll"), "heap", folder.Path, "--format", "json");
            Assert.True(json.ExitCode == ExitCodes.Ok, json.StdErr);
            var snapshots = JsonDocument.Parse(json.StdOut).RootElement.GetProperty("snapshots").EnumerateArray().ToList();
            Assert.Equal(2, snapshots.Count);
            Assert.All(snapshots, s => Assert.Equal(Objects, s.GetProperty("deserialized").GetProperty("strings").GetInt32()));
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    [Fact]
    public async Task A_snapshot_that_cannot_be_written_is_one_line_and_the_recording_and_later_snapshots_still_complete()
    {
        var dir = Repo.NewTempDir("heapfail");
        try
        {
            var outDir = Path.Combine(dir, "t");
            // A folder where the first dump should go: the runtime cannot create the file.
            Directory.CreateDirectory(Path.Combine(outDir, TraceFolderLayout.HeapDumpFileName("System.Text.Json", 100)));
            var (exit, folder, output) = await Recording.RecordAsync(outDir,
            [
                "--profile", "gc", "--data", "sharedstrings", "--n", "100", "--warmup", "0", "--runs", "1", "--ops", "1", "--test", "deserialize",
                "--serializers", string.Join(',', Serializers), "--heap", string.Join(',', Serializers), "--quiet",
            ]);

            Assert.Equal(ExitCodes.Failed, exit);
            var manifest = TraceManifest.Load(folder.Manifest);
            Assert.Equal(RecordingStatus.Complete, manifest.Status);
            var failed = manifest.HeapSnapshots!.Single(h => h.Serializer == "System.Text.Json");
            Assert.Equal(HeapSnapshotStatus.Failed, failed.Status);
            Assert.Contains("is a folder", failed.Error, StringComparison.Ordinal);
            Assert.DoesNotContain('\n', failed.Error!);
            Assert.Contains($"heap snapshot System.Text.Json N=100 Failed: {failed.Error}", output, StringComparison.Ordinal);
            Assert.Equal(HeapSnapshotStatus.Taken, manifest.HeapSnapshots!.Single(h => h.Serializer == "Google.Protobuf").Status);

            // Everything else of the recording is there: trace, results of both serializers.
            Assert.True(new FileInfo(folder.Trace).Length > 0);
            var results = Recording.Results(folder);
            Assert.Equal(Serializers.Order(), results.Runs.Select(r => r.Serializer).Distinct().Order());
            Assert.Equal(HeapSnapshotStatus.Failed, results.HeapSnapshots!.Single(h => h.Serializer == "System.Text.Json").Status);

            // esp heap shows the snapshot that exists, notes the one that does not, and says so in its exit code.
            var r = ProcessRunner.Dotnet(Path.Combine(Repo.BinDir, "esp.dll"), "heap", folder.Path);
            Assert.Equal(ExitCodes.Failed, r.ExitCode);
            Assert.Contains("Google.Protobuf N=100 (heap-Google.Protobuf-100.dmp)", r.StdOut, StringComparison.Ordinal);
            Assert.Contains("System.Text.Json N=100: no snapshot (Failed)", r.StdOut, StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }
}
