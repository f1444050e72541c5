using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;

// Not Tests.Common: that namespace would hide EtwSerializerProfiler.Common from the tests that write Common.ExitCodes.
namespace EtwSerializerProfiler.Tests.Contracts;

/// <summary>The recorder writes and the analyzer finds the same file names: one definition, checked both ways.</summary>
public sealed class TraceFolderLayoutTests
{
    [Fact]
    public void The_names_are_those_of_folders_already_recorded()
    {
        Assert.Equal(
            ["trace.nettrace", "trace.etl", "manifest.json", "results.json", "results.csv", "Serializers.stacktags", "kernel.perf.data", "kernel.perf-script.txt.gz"],
            [TraceFolderLayout.Trace, TraceFolderLayout.Etl, TraceFolderLayout.Manifest, TraceFolderLayout.ResultsJson, TraceFolderLayout.ResultsCsv,
                TraceFolderLayout.StackTags, TraceFolderLayout.KernelData, TraceFolderLayout.KernelScript]);
        Assert.Equal("heap-System.Text.Json-200.dmp", TraceFolderLayout.HeapDumpFileName("System.Text.Json", 200));
        Assert.Matches("^" + TraceFolderLayout.HeapDumpPattern.Replace(".", "\\.", StringComparison.Ordinal).Replace("*", ".*", StringComparison.Ordinal) + "$",
            TraceFolderLayout.HeapDumpFileName("a/b", 1));
    }

    [Fact]
    public void What_the_recorders_folder_names_the_analyzer_opens_as_companions()
    {
        var dir = Path.Combine(Path.GetTempPath(), $"esp-layout-{Guid.NewGuid():N}");
        try
        {
            var folder = TraceFolder.CreateExplicit(dir);
            File.WriteAllBytes(folder.Trace, "Nettrace"u8.ToArray());
            foreach (var file in new[] { folder.ResultsJson, folder.StackTags, folder.Manifest, folder.KernelScript }) File.WriteAllText(file, "");
            using var input = TraceInput.Open(dir);
            Assert.Equal(folder.Trace, input.TracePath);
            Assert.Equal(folder.ResultsJson, input.ResultsPath);
            Assert.Equal(folder.StackTags, input.StackTagsPath);
            Assert.Equal(folder.Manifest, input.ManifestPath);
            Assert.Equal(folder.KernelScript, input.KernelScriptPath);
            Assert.Null(input.ExceptionsPath);
            Assert.Empty(input.ExceptionStackPaths);
        }
        finally { Directory.Delete(dir, recursive: true); }
    }

    [Fact]
    public void A_zipped_recording_with_exception_files_opens_its_trace_with_them()
    {
        var dir = Path.Combine(Path.GetTempPath(), $"esp-layout-{Guid.NewGuid():N}");
        Directory.CreateDirectory(dir);
        var zipPath = Path.Combine(dir, "rec.zip");
        try
        {
            using (var zip = System.IO.Compression.ZipFile.Open(zipPath, System.IO.Compression.ZipArchiveMode.Create))
                foreach (var name in new[] { TraceFolderLayout.Trace, TraceFolderLayout.ExceptionsTrace, TraceFolderLayout.ExceptionStacksFile(1) })
                    using (var entry = zip.CreateEntry("rec/" + name).Open()) entry.Write("Nettrace"u8);
            using var input = TraceInput.Open(zipPath);
            Assert.Equal(TraceFolderLayout.Trace, Path.GetFileName(input.TracePath));
            Assert.Equal(TraceFolderLayout.ExceptionsTrace, Path.GetFileName(input.ExceptionsPath));
            Assert.Equal([TraceFolderLayout.ExceptionStacksFile(1)], input.ExceptionStackPaths.Select(Path.GetFileName));
        }
        finally { Directory.Delete(dir, recursive: true); }
    }

    [Fact]
    public void The_exception_sessions_files_are_companions_not_traces()
    {
        var dir = Path.Combine(Path.GetTempPath(), $"esp-layout-{Guid.NewGuid():N}");
        try
        {
            var folder = TraceFolder.CreateExplicit(dir);
            File.WriteAllBytes(folder.Trace, "Nettrace"u8.ToArray());
            foreach (var name in new[] { TraceFolderLayout.ExceptionsTrace, TraceFolderLayout.ExceptionStacksFile(2), TraceFolderLayout.ExceptionStacksFile(1) })
                File.WriteAllBytes(Path.Combine(dir, name), "Nettrace"u8.ToArray());
            using (var input = TraceInput.Open(dir))
            {
                Assert.Equal(folder.Trace, input.TracePath);
                Assert.Equal(Path.Combine(folder.Path, "exceptions.nettrace"), input.ExceptionsPath);
                Assert.Equal(["exception-stacks-001.nettrace", "exception-stacks-002.nettrace"], input.ExceptionStackPaths.Select(Path.GetFileName));
            }
            // Without trace.nettrace the folder's one other trace is the trace: the exception files are never taken for it.
            File.Move(folder.Trace, Path.Combine(dir, "other.nettrace"));
            using (var other = TraceInput.Open(dir))
            {
                Assert.Equal("other.nettrace", Path.GetFileName(other.TracePath));
                Assert.Null(other.ExceptionsPath);
            }
        }
        finally { Directory.Delete(dir, recursive: true); }
    }
}
