using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Export;

/// <summary>Writing where the user said: a place that cannot be written is the user's to fix (one line, exit 2), not a crash.</summary>
internal static class OutputFile
{
    public static void Write(string option, string path, string content) => Writable(option, path, () =>
    {
        var dir = Path.GetDirectoryName(Path.GetFullPath(path));
        if (dir is not null) Directory.CreateDirectory(dir);
        File.WriteAllText(path, content);
    });

    /// <returns>The folder's full path, created if needed.</returns>
    public static string Folder(string option, string path)
    {
        var full = path;
        Writable(option, path, () => full = Directory.CreateDirectory(path).FullName);
        return full;
    }

    public static void Writable(string option, string path, Action write)
    {
        try
        {
            write();
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            throw new UsageException($"{option} {path}: cannot write there ({ex.Message})");
        }
    }
}
