using System.Reflection;
using EtwSerializerProfiler.Analyzer.Heap;
using EtwSerializerProfiler.Benchmark;
using EtwSerializerProfiler.Benchmark.Runs;
using EtwSerializerProfiler.Cli.Commands;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Heap;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Heap;

/// <summary>The pieces around the dump: options, names shared between benchmark and analyzer, failure messages.</summary>
[EndToEnd]
public sealed class HeapSnapshotPartsTests
{
    [Fact]
    public void The_holder_has_the_fields_the_analyzer_reads_by_name()
    {
        var type = typeof(HeapSnapshotRoots);
        Assert.Equal(HeapSnapshotRootNames.TypeName, type.FullName);
        foreach (var field in new[] { HeapSnapshotRootNames.OriginalField, HeapSnapshotRootNames.DeserializedField, HeapSnapshotRootNames.InfoField })
            Assert.NotNull(type.GetField(field, BindingFlags.Static | BindingFlags.NonPublic));
    }

    [Fact]
    public void Heap_options_default_to_the_first_size_and_are_validated_up_front()
    {
        var plan = BenchmarkOptions.Parse(["--n", "50,1000", "--heap", "system.text.json,Reflection"]).Heap!;
        Assert.Equal(["System.Text.Json", "Reflection"], plan.Serializers.Select(s => s.Name));
        Assert.Equal(50, plan.Objects);
        Assert.Null(plan.Pipe);
        Assert.Equal(HeapSnapshotProtocol.DefaultDumpTimeout + HeapSnapshotProtocol.BenchmarkWaitMargin, plan.Timeout);
        Assert.Null(BenchmarkOptions.Parse([]).Heap);
        Assert.Equal(1000, BenchmarkOptions.Parse(["--n", "50,1000", "--heap", "Reflection", "--heap-objects", "1000"]).Heap!.Objects);

        Assert.Contains("must be one of the --n sizes", Usage("--n", "50", "--heap", "Reflection", "--heap-objects", "7"), StringComparison.Ordinal);
        Assert.Contains("not among --serializers", Usage("--serializers", "Reflection", "--heap", "Google.Protobuf"), StringComparison.Ordinal);
        Assert.Contains("unknown serializer 'nope'", Usage("--heap", "nope"), StringComparison.Ordinal);
        Assert.Contains("--test firstcall", Usage("--test", "firstcall", "--heap", "Reflection"), StringComparison.Ordinal);
        Assert.Contains("need --heap", Usage("--heap-objects", "5"), StringComparison.Ordinal);
    }

    private static string Usage(params string[] args) => Assert.Throws<UsageException>(() => BenchmarkOptions.Parse(args)).Message;

    [Fact]
    public void The_recorder_takes_the_request_from_the_benchmarks_own_parse_and_owns_the_pipe_options()
    {
        HeapRequest? Heap(params string[] args) => RecordVerb.Parse(args).Benchmark.Heap;
        Assert.Null(Heap("--n", "10"));
        Assert.Equal(10_000, Heap("--heap", "Reflection,System.Text.Json", "--n", "10k,5")!.Objects);
        Assert.Equal(["Reflection", "System.Text.Json"], Heap("--heap=reflection, System.Text.Json", "--n", "3")!.Serializers);
        Assert.Equal(3, Heap("--heap=Reflection", "--n", "5,3", "--heap-objects=3")!.Objects);
        Assert.Equal(["--heap-pipe"], RecordVerb.Parse(["--heap", "Reflection", "--heap-pipe", "x"]).Benchmark.RecorderOwned);
    }

    [Fact]
    public void Dump_file_names_are_safe_and_readable()
    {
        Assert.Equal("heap-System.Text.Json-200.dmp", TraceFolderLayout.HeapDumpFileName("System.Text.Json", 200));
        Assert.Equal("heap-a_b_c-1.dmp", TraceFolderLayout.HeapDumpFileName("a/b:c", 1));
    }

    [Fact]
    public void Duplicate_strings_count_every_instance_after_the_first_as_waste()
    {
        var strings = new[]
        {
            new StringInstance(1, 40, "same"), new StringInstance(2, 40, "same"), new StringInstance(3, 40, "same"),
            new StringInstance(4, 30, "other"), new StringInstance(5, 30, "lonely\n"), new StringInstance(6, 30, "lonely\n"),
        };
        var found = DuplicateStrings.Find("deserialized", strings);
        Assert.Equal(2, found.Count);
        Assert.Equal(("same", 3L, 120L, 80L), (found[0].Preview, found[0].Instances, found[0].InstanceBytes, found[0].WastedBytes));
        Assert.Equal("lonely\\u000a", found[1].Preview);
        Assert.Equal(110, DuplicateStrings.WastedBytes(strings));
        Assert.Equal(new string('x', DuplicateStrings.PreviewChars) + "...", DuplicateStrings.Preview(new string('x', 100)));
    }

    [Fact]
    public void Type_names_lose_their_namespaces_in_tables()
    {
        Assert.Equal("List<SharedTitleBook>", HeapReport.ShortTypeName("System.Collections.Generic.List<EtwSerializerProfiler.Benchmark.Data.SharedTitleBook>"));
        Assert.Equal("Dictionary<String, Int32>", HeapReport.ShortTypeName("System.Collections.Generic.Dictionary<System.String, System.Int32>"));
        Assert.Equal("Byte[]", HeapReport.ShortTypeName("System.Byte[]"));
    }

    [Fact]
    public async Task A_dump_the_runtime_cannot_write_is_a_one_line_error_naming_the_cause()
    {
        // A real request to this test process's runtime; the target folder does not exist, so createdump fails.
        var folder = Path.Combine(Path.GetTempPath(), $"esp-no-such-folder-{Guid.NewGuid():N}");
        var outcome = await HeapDumpWriter.WriteAsync(new HeapSnapshotInfo { Serializer = "X", Data = "BookShelf", Objects = 1 },
            Environment.ProcessId, folder, workingSetBytes: 0, System.Runtime.InteropServices.RuntimeEnvironment.GetRuntimeDirectory(),
            TimeSpan.FromSeconds(60), CancellationToken.None);
        Assert.Equal(HeapSnapshotStatus.Failed, outcome.Status);
        Assert.Null(outcome.File);
        Assert.Contains("the runtime could not write heap-X-1.dmp", outcome.Error, StringComparison.Ordinal);
        Assert.Contains($"cannot create files in {folder}", outcome.Error, StringComparison.Ordinal);
        if (OperatingSystem.IsLinux()) Assert.Contains("createdump: Could not create output file", outcome.Error, StringComparison.Ordinal);
        Assert.DoesNotContain('\n', outcome.Error!);
        Assert.False(Directory.Exists(folder));
    }

    [Fact]
    public void Without_a_recorder_the_benchmark_still_measures_and_says_no_dump_was_taken()
    {
        var json = Path.Combine(Path.GetTempPath(), $"esp-heap-{Guid.NewGuid():N}.json");
        try
        {
            var r = ProcessRunner.Dotnet(Repo.BenchmarkDll, "--heap", "Reflection", "--serializers", "Reflection", "--data", "sharedstrings",
                "--n", "100", "--warmup", "0", "--runs", "1", "--ops", "1", "--test", "serialize", "--json", json);
            Assert.True(r.ExitCode == 0, r.StdErr);
            var snapshot = Assert.Single(BenchmarkResults.Load(json).HeapSnapshots!);
            Assert.Equal(HeapSnapshotStatus.NoRecorder, snapshot.Status);
            Assert.Equal(1, snapshot.Run);
            // 100 copies of a 1 KB title (2 KB as UTF-16): Reflection keeps no identity (one shared title would be
            // ~7 KB). GC.GetTotalMemory deltas also see other threads' garbage die, a few KB on a loaded machine
            // (203,280 bytes once, with both cores busy), hence 10% below.
            Assert.InRange(snapshot.DeserializedInProcessBytes!.Value, 100 * 2 * 1024 * 9 / 10, 100 * 2 * 1024 + 64 * 1024);
            Assert.Contains("heap snapshot Reflection N=100", r.StdOut, StringComparison.Ordinal);
        }
        finally
        {
            File.Delete(json);
        }
    }

    [Theory]
    [InlineData("/no/such/heap/folder")]
    [InlineData("")]
    public void Heap_on_a_folder_without_snapshots_is_one_line_and_exit_3(string path)
    {
        var dir = path.Length > 0 ? path : Repo.NewTempDir("noheap");
        try
        {
            var r = ProcessRunner.Dotnet(Path.Combine(Repo.BinDir, "esp.dll"), "heap", dir);
            Assert.Equal(ExitCodes.BadInput, r.ExitCode);
            Assert.Single(r.StdErr.Trim().Split('\n'));
            Assert.DoesNotContain("   at ", r.StdErr, StringComparison.Ordinal);
        }
        finally
        {
            if (path.Length == 0) Directory.Delete(dir, recursive: true);
        }
    }
}
