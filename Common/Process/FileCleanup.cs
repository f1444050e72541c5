namespace EtwSerializerProfiler.Common;

/// <summary>Removing what a step leaves behind, where a file or folder that cannot go is no error: it is only left.</summary>
public static class FileCleanup
{
    /// <summary>Deletes a file if it can: a missing one, one in use or one this user may not remove is left as it is.</summary>
    public static void TryDelete(string path)
    {
        try { File.Delete(path); }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { } // left: the caller's result does not depend on it
    }

    /// <summary>Deletes a folder and what it holds if it can; what cannot go (in use, not this user's) is left.</summary>
    public static void TryDeleteDirectory(string path)
    {
        try { if (Directory.Exists(path)) Directory.Delete(path, recursive: true); }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { } // left: for the next run to reuse or remove
    }
}
