using Microsoft.Diagnostics.NETCore.Client;

namespace EtwSerializerProfiler.Recorder.EventPipe;

/// <summary>A side session's event stream (stacks, exceptions) written to its file, or drained when it cannot be.</summary>
internal static class SideSessionStream
{
    /// <summary>
    /// Copies a session's stream into its file (null: nowhere), for every session this recorder starts. A file that
    /// cannot be written is a warning, and the stream is drained so the runtime never blocks on a full pipe.
    /// </summary>
    /// <param name="counted">Told the bytes of each block as it is written (the stackless stream: how the sampler sees throws begin).</param>
    public static async Task CopyAsync(EventPipeSession session, string? path, List<string> warnings, Action<int>? counted = null)
    {
        try
        {
            await using var file = path is null ? Stream.Null : new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.Read, 81920, useAsync: true);
            if (counted is null) { await session.EventStream.CopyToAsync(file).ConfigureAwait(false); return; }
            var buffer = new byte[81920];
            int read;
            while ((read = await session.EventStream.ReadAsync(buffer).ConfigureAwait(false)) > 0)
            {
                await file.WriteAsync(buffer.AsMemory(0, read)).ConfigureAwait(false);
                counted(read);
            }
        }
        catch (Exception ex) when (ex is IOException or ObjectDisposedException or UnauthorizedAccessException)
        {
            if (path is not null) lock (warnings) warnings.Add($"{Path.GetFileName(path)}: {ex.Message}");
            await DrainAsync(session).ConfigureAwait(false);
        }
    }

    /// <summary>A failed write (a full disk) leaves a side session's stream: it is still read to its end, so the session never waits on it.</summary>
    public static async Task DrainAsync(EventPipeSession session)
    {
        try { await session.EventStream.CopyToAsync(Stream.Null).ConfigureAwait(false); }
        catch (Exception ex) when (ex is IOException or ObjectDisposedException) { } // the stream ended or closed: nothing left to drain
    }
}
