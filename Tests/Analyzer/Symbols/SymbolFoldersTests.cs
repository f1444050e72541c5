using EtwSerializerProfiler.Analyzer.Symbols;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Symbols;

/// <summary>--symbols DIR: every layout found by the files' own build ids; a wrong folder refused in one line.</summary>
public sealed class SymbolFoldersTests : IDisposable
{
    private const string Id = ElfBuildIdTests.FixtureBuildId;
    private readonly string _dir = Repo.NewTempDir("symfolders");

    public void Dispose() => Directory.Delete(_dir, recursive: true);

    private string Put(string relative, string fixture = "libespburn.so.debug")
    {
        var path = Path.Combine(_dir, relative);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        File.Copy(Path.Combine(ElfBuildIdTests.Fixtures, fixture), path);
        return path;
    }

    [Theory]
    [InlineData("libespburn.so.dbg")]                                            // dotnet-symbol's flat output
    [InlineData(".build-id/e9/20e51ad938a36ad9b22ae67610010cd546c08d.debug")]    // /usr/lib/debug's build-id tree
    [InlineData(".build-id/e9/20e51ad938a36ad9b22ae67610010cd546c08d/debug")]    // perf's build-id cache
    [InlineData("usr/lib/x86_64-linux-gnu/libespburn.so.debug")]                 // /usr/lib/debug's path tree
    [InlineData("a-name-that-says-nothing")]                                     // the note names the module, not the file name
    public void A_debug_file_is_found_by_its_build_id_in_any_layout(string relative)
    {
        var path = Put(relative);
        var found = SymbolFolders.Scan([_dir]);
        Assert.Equal(path, Assert.Single(found.ByBuildId).Value.Path);
        Assert.Equal(Id, found.ByBuildId.Single().Key);
    }

    [Fact]
    public void A_stripped_library_is_counted_but_not_used()
    {
        Put("lib/libespburn.so", "libespburn.so");
        File.WriteAllText(Path.Combine(_dir, "README"), "text");
        var found = SymbolFolders.Scan([_dir]);
        Assert.Empty(found.ByBuildId);
        Assert.Equal(1, found.WithoutSymbols);
        Assert.Equal(2, found.FilesLooked);
    }

    [Fact]
    public void Two_copies_of_one_debug_file_are_one_entry_the_first_by_name()
    {
        var first = Put("a/libespburn.so.debug");
        Put("b/libespburn.so.debug");
        Assert.Equal(first, Assert.Single(SymbolFolders.Scan([_dir]).ByBuildId).Value.Path);
    }

    [Fact]
    public void A_missing_folder_is_a_usage_error_naming_it()
    {
        var missing = Path.Combine(_dir, "nope");
        var ex = Assert.Throws<UsageException>(() => SymbolFolders.Scan([missing]));
        Assert.Equal($"--symbols {missing}: no such folder", ex.Message);
    }

    [Fact]
    public void A_file_instead_of_a_folder_is_a_usage_error_saying_so()
    {
        var file = Put("libespburn.so.debug");
        var ex = Assert.Throws<UsageException>(() => SymbolFolders.Scan([file]));
        Assert.Contains("a file, not a folder", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void The_build_id_list_perf_prints_is_read_kernel_entries_marked()
    {
        // perf 6.1.187's `perf buildid-list -i kernel.perf.data` on a recording of the benchmark, verbatim.
        var modules = PerfBuildIds.Parse("""
            abf9ec0ec5946600c90641cf5db998472fac410b [kernel.kallsyms]
            79945f51fb2612f13b7667a10a8fd29122664791 /usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/libcoreclr.so
            e17735e083bee5962b452ede4e28f9520fb75fa7 [vdso]
            """);
        Assert.Equal(3, modules.Count);
        Assert.Equal(("79945f51fb2612f13b7667a10a8fd29122664791", "libcoreclr.so", false), (modules[1].BuildId, modules[1].Name, modules[1].IsKernel));
        Assert.True(modules[0].IsKernel);
        Assert.True(modules[2].IsKernel);
    }
}
