using System.IO.Pipes;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Benchmark.Runs;

/// <summary>
/// The benchmark's end of the <see cref="ExitHandshake"/>: with results written, tell the ETW recorder "exiting" and
/// wait for its "go", so its rundown happens while this process is still alive to answer it. Never fails the run:
/// anything that goes wrong is a warning, and the process exits (the trace then lacks the rundown's names).
/// </summary>
public static class RecorderExitGate
{
    /// <summary>Null once the recorder said "go"; otherwise why the benchmark exits without waiting further.</summary>
    public static string? WaitForRecorder(string pipeName, TimeSpan connectTimeout, TimeSpan waitLimit)
    {
        // CurrentUserOnly: only a recorder of the same user may hold this process (the recorder checks the same).
        using var pipe = new NamedPipeClientStream(".", pipeName, PipeDirection.InOut, PipeOptions.CurrentUserOnly);
        try
        {
            pipe.Connect((int)connectTimeout.TotalMilliseconds);
            using var reader = new StreamReader(pipe);
            using var writer = new StreamWriter(pipe) { AutoFlush = true, NewLine = "\n" };
            writer.WriteLine(ExitHandshake.ExitingMessage(Environment.ProcessId));
            var answer = reader.ReadLineAsync();
            if (!answer.Wait(waitLimit)) return $"the recorder did not answer on '{pipeName}' within {waitLimit.TotalSeconds:F0} s; exiting without its rundown";
            return answer.Result == ExitHandshake.Go ? null : "the recorder closed the exit pipe without answering; exiting without its rundown";
        }
        catch (Exception ex) when (ex is TimeoutException or IOException or UnauthorizedAccessException or AggregateException)
        {
            return $"exit handshake with the recorder on '{pipeName}' failed: {(ex as AggregateException)?.InnerException?.Message ?? ex.Message}";
        }
    }
}
