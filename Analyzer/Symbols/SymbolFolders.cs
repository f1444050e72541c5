using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Symbols;

/// <summary>The debug files found in the --symbols folders, by build id, and what else was there.</summary>
public sealed record SymbolFolderContents(IReadOnlyList<string> Folders, IReadOnlyDictionary<string, ElfDebugFile> ByBuildId, int FilesLooked, int WithoutSymbols, bool Truncated)
{
    public string FolderNames => string.Join(", ", Folders);
}

/// <summary>
/// `--symbols DIR`: any ELF file with a build id and a symbol table anywhere under DIR is a debug file for the module
/// with that build id. So every layout works the same: perf's and the distributions' build-id trees
/// (`DIR/.build-id/xx/rest.debug`, `DIR/.build-id/xx/rest/debug`), dotnet-symbol's flat output (`DIR/libcoreclr.so.dbg`),
/// a copy of `/usr/lib/debug`, or unstripped libraries. The file's own note says which module it belongs to, so a
/// file under a wrong name cannot name the wrong module.
/// </summary>
public static class SymbolFolders
{
    /// <summary>More than this many files is not a symbol folder (a home directory passed by mistake): stop looking.</summary>
    public const int MaxFiles = 200_000;
    /// <summary>ELF's header is 52 (32-bit) or 64 bytes; smaller files are skipped without opening.</summary>
    private const long MinElfBytes = 52;

    /// <exception cref="UsageException">a folder does not exist or is a file (exit 2, as a missing --stacktags file).</exception>
    public static SymbolFolderContents Scan(IReadOnlyList<string> folders)
    {
        foreach (var folder in folders) Validate(folder);
        var byBuildId = new Dictionary<string, ElfDebugFile>(StringComparer.Ordinal);
        int looked = 0, withoutSymbols = 0;
        var truncated = false;
        var options = new EnumerationOptions { RecurseSubdirectories = true, IgnoreInaccessible = true, AttributesToSkip = 0, ReturnSpecialDirectories = false };
        foreach (var folder in folders)
        {
            var paths = Directory.EnumerateFiles(folder, "*", options).Take(MaxFiles - looked + 1).ToList();
            if (looked + paths.Count > MaxFiles) { truncated = true; paths.RemoveAt(paths.Count - 1); }
            // In name order, so which of two copies of one build id is used does not depend on the file system.
            foreach (var path in paths.Order(StringComparer.Ordinal))
            {
                looked++;
                if (!LargeEnough(path) || ElfBuildId.Read(path) is not { } elf) continue;
                if (!elf.HasSymbols) { withoutSymbols++; continue; }
                // The first of several copies wins (a build-id tree links to the file it also holds by name).
                byBuildId.TryAdd(elf.BuildId, elf);
            }
            if (truncated) break;
        }
        return new SymbolFolderContents(folders, byBuildId, looked, withoutSymbols, truncated);
    }

    public static void Validate(string folder)
    {
        if (Directory.Exists(folder)) return;
        throw new UsageException(File.Exists(folder)
            ? $"--symbols {folder}: a file, not a folder (pass the folder that holds the debug files)"
            : $"--symbols {folder}: no such folder");
    }

    private static bool LargeEnough(string path)
    {
        try { return new FileInfo(path).Length >= MinElfBytes; }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { return false; }
    }
}
