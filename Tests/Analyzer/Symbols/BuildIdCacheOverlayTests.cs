using EtwSerializerProfiler.Analyzer.Symbols;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Symbols;

/// <summary>
/// The temporary build-id cache perf is pointed at: the user's cache as it was, plus the debug file where perf looks
/// for it (DIR/.build-id/xx/rest/debug, the layout `perf --buildid-dir` was seen to use with perf 6.1 here), and
/// removing it never reaches through a link into the user's files.
/// </summary>
public sealed class BuildIdCacheOverlayTests : IDisposable
{
    private const string Id = ElfBuildIdTests.FixtureBuildId;
    private readonly string _dir = Repo.NewTempDir("overlay");
    private readonly string _cache;
    private readonly ElfDebugFile _debug;

    public BuildIdCacheOverlayTests()
    {
        // A user cache as perf record leaves it: module copies filed by path, .build-id links to them, the kernel's.
        _cache = Path.Combine(_dir, "home-debug");
        Write(Path.Combine(_cache, "[kernel.kallsyms]", "abf9", "kallsyms"));
        Write(Path.Combine(_cache, "usr", "lib", "libx.so", "ab12", "elf"));
        Directory.CreateDirectory(Path.Combine(_cache, ".build-id", "ab"));
        File.CreateSymbolicLink(Path.Combine(_cache, ".build-id", "ab", "12"), "../../usr/lib/libx.so/ab12");
        // Same prefix as the debug file, another module: must stay visible beside it.
        Write(Path.Combine(_cache, "usr", "lib", "liby.so", "e9ff", "elf"));
        Directory.CreateDirectory(Path.Combine(_cache, ".build-id", "e9"));
        File.CreateSymbolicLink(Path.Combine(_cache, ".build-id", "e9", "ff"), "../../usr/lib/liby.so/e9ff");
        // The debug file's own module, with perf's copy of the stripped binary.
        Write(Path.Combine(_cache, "usr", "lib", "libespburn.so", Id, "elf"));
        File.CreateSymbolicLink(Path.Combine(_cache, ".build-id", "e9", Id[2..]), $"../../usr/lib/libespburn.so/{Id}");
        _debug = ElfBuildId.Read(Path.Combine(ElfBuildIdTests.Fixtures, "libespburn.so.debug"))!;
    }

    public void Dispose() => Directory.Delete(_dir, recursive: true);

    private static void Write(string path)
    {
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        File.WriteAllText(path, path);
    }

    private static string ReadThrough(string path) => File.ReadAllText(path);

    [Fact]
    public void Perf_finds_the_debug_file_by_build_id_and_everything_the_user_cache_had()
    {
        using var overlay = BuildIdCacheOverlay.Create([_debug], _cache, Path.Combine(_dir, "overlay"));
        var root = overlay.Root;
        Assert.Equal(File.ReadAllBytes(_debug.Path), File.ReadAllBytes(Path.Combine(root, ".build-id", "e9", Id[2..], "debug")));
        Assert.EndsWith(Path.Combine("libespburn.so", Id, "elf"), ReadThrough(Path.Combine(root, ".build-id", "e9", Id[2..], "elf")), StringComparison.Ordinal);
        Assert.EndsWith(Path.Combine("liby.so", "e9ff", "elf"), ReadThrough(Path.Combine(root, ".build-id", "e9", "ff", "elf")), StringComparison.Ordinal);
        Assert.EndsWith(Path.Combine("libx.so", "ab12", "elf"), ReadThrough(Path.Combine(root, ".build-id", "ab", "12", "elf")), StringComparison.Ordinal);
        Assert.EndsWith("kallsyms", ReadThrough(Path.Combine(root, "[kernel.kallsyms]", "abf9", "kallsyms")), StringComparison.Ordinal);
    }

    [Fact]
    public void Without_a_user_cache_the_overlay_holds_the_debug_file_alone()
    {
        using var overlay = BuildIdCacheOverlay.Create([_debug], Path.Combine(_dir, "no-such-cache"), Path.Combine(_dir, "overlay"));
        Assert.True(File.Exists(Path.Combine(overlay.Root, ".build-id", "e9", Id[2..], "debug")));
        Assert.Single(Directory.EnumerateFileSystemEntries(overlay.Root));
    }

    [Fact]
    public void Removing_the_overlay_leaves_every_file_of_the_user_cache_and_the_debug_file()
    {
        var before = Directory.EnumerateFiles(_cache, "*", SearchOption.AllDirectories).Order(StringComparer.Ordinal).ToList();
        var overlay = BuildIdCacheOverlay.Create([_debug], _cache, Path.Combine(_dir, "overlay"));
        overlay.Dispose();
        Assert.False(Directory.Exists(overlay.Root));
        Assert.Equal(before, Directory.EnumerateFiles(_cache, "*", SearchOption.AllDirectories).Order(StringComparer.Ordinal).ToList());
        Assert.True(File.Exists(_debug.Path));
    }

    [Fact]
    public void The_stale_temp_sweep_deleting_a_leftover_overlay_recursively_does_not_follow_its_links_either()
    {
        // A killed esp leaves the overlay; EspTempFiles.SweepStale removes it with Directory.Delete(recursive: true).
        var before = Directory.EnumerateFiles(_cache, "*", SearchOption.AllDirectories).Count();
        var overlay = BuildIdCacheOverlay.Create([_debug], _cache, Path.Combine(_dir, "overlay"));
        Directory.Delete(overlay.Root, recursive: true);
        Assert.Equal(before, Directory.EnumerateFiles(_cache, "*", SearchOption.AllDirectories).Count());
        Assert.True(File.Exists(_debug.Path));
    }
}
