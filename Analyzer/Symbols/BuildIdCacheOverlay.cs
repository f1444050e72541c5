using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Symbols;

/// <summary>
/// A temporary perf build-id cache made of symbolic links: the user's own cache (~/.debug, where `perf record` files a
/// copy of every module it sampled) as it is, plus one `.build-id/xx/rest/debug` link per --symbols debug file, the
/// place perf looks for a module's debug file by build id. `perf --buildid-dir OVERLAY script` then names frames from
/// both, and nothing is written into the user's cache. Only links are made, and only links are removed.
/// </summary>
internal sealed class BuildIdCacheOverlay : IDisposable
{
    private const string BuildIdFolder = ".build-id";
    /// <summary>The name perf gives a module's debug file inside its build-id folder.</summary>
    public const string DebugName = "debug";

    public string Root { get; }

    private BuildIdCacheOverlay(string root) => Root = root;

    /// <summary>perf's default cache: $HOME/.debug (perf's `buildid.dir` setting moves it; esp does not read perf's config).</summary>
    public static string? DefaultCache() =>
        Environment.GetFolderPath(Environment.SpecialFolder.UserProfile) is { Length: > 0 } home ? Path.Combine(home, ".debug") : null;

    public static BuildIdCacheOverlay Create(IEnumerable<ElfDebugFile> debugFiles, string? userCache, string? root = null)
    {
        var overlay = new BuildIdCacheOverlay(root ?? EspTempFiles.NewPath("-buildid"));
        try
        {
            overlay.Build(debugFiles.ToList(), userCache is not null && Directory.Exists(userCache) ? userCache : null);
            return overlay;
        }
        catch
        {
            overlay.Dispose();
            throw;
        }
    }

    private void Build(List<ElfDebugFile> files, string? cache)
    {
        var ids = Path.Combine(Root, BuildIdFolder);
        Directory.CreateDirectory(ids);
        var prefixes = files.Select(f => f.BuildId[..2]).ToHashSet(StringComparer.Ordinal);
        if (cache is not null)
        {
            foreach (var entry in Directory.EnumerateFileSystemEntries(cache))
                if (Path.GetFileName(entry) != BuildIdFolder) Link(Path.Combine(Root, Path.GetFileName(entry)), entry);
            var cacheIds = Path.Combine(cache, BuildIdFolder);
            if (Directory.Exists(cacheIds))
                foreach (var prefix in Directory.EnumerateFileSystemEntries(cacheIds))
                    if (!prefixes.Contains(Path.GetFileName(prefix))) Link(Path.Combine(ids, Path.GetFileName(prefix)), prefix);
        }
        foreach (var prefix in prefixes)
        {
            var dir = Directory.CreateDirectory(Path.Combine(ids, prefix)).FullName;
            var ours = files.Where(f => f.BuildId.StartsWith(prefix, StringComparison.Ordinal)).Select(f => f.BuildId[2..]).ToHashSet(StringComparer.Ordinal);
            if (cache is not null && Directory.Exists(Path.Combine(cache, BuildIdFolder, prefix)))
                foreach (var entry in Directory.EnumerateFileSystemEntries(Path.Combine(cache, BuildIdFolder, prefix)))
                    if (!ours.Contains(Path.GetFileName(entry))) Link(Path.Combine(dir, Path.GetFileName(entry)), entry);
        }
        foreach (var file in files)
        {
            var module = Directory.CreateDirectory(Path.Combine(ids, file.BuildId[..2], file.BuildId[2..])).FullName;
            // What the user's cache holds for this module (its copy of the binary, `elf`) stays visible beside the debug file.
            var cached = cache is null ? null : Path.Combine(cache, BuildIdFolder, file.BuildId[..2], file.BuildId[2..]);
            if (cached is not null && Directory.Exists(cached))
                foreach (var entry in Directory.EnumerateFileSystemEntries(cached))
                    if (Path.GetFileName(entry) != DebugName) Link(Path.Combine(module, Path.GetFileName(entry)), entry);
            Link(Path.Combine(module, DebugName), Path.GetFullPath(file.Path));
        }
    }

    private static void Link(string at, string target) => File.CreateSymbolicLink(at, target);

    /// <summary>Removes the links and the folders made for them, and never follows a link (it would reach the user's files).</summary>
    public void Dispose() => RemoveTree(Root);

    private static void RemoveTree(string dir)
    {
        try
        {
            if (!Directory.Exists(dir)) return;
            foreach (var entry in new DirectoryInfo(dir).EnumerateFileSystemInfos())
            {
                if (entry.LinkTarget is not null) File.Delete(entry.FullName);
                else if (entry is DirectoryInfo) RemoveTree(entry.FullName);
                else entry.Delete();
            }
            Directory.Delete(dir);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { } // a temp folder; the sweep of stale esp entries gets it later
    }
}
