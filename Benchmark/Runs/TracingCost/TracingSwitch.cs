using System.IO.Pipes;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Benchmark.Runs.TracingCost;

/// <summary>
/// The benchmark's end of the <see cref="TracingCostHandshake"/>: asks the recorder to turn tracing off or on and
/// waits for its answer. Never throws: a recorder that is gone or silent ends the blocks with a reason.
/// </summary>
public sealed class TracingSwitch : IDisposable
{
    private readonly NamedPipeClientStream _pipe;
    private readonly StreamReader _reader;
    private readonly StreamWriter _writer;

    private TracingSwitch(NamedPipeClientStream pipe)
    {
        _pipe = pipe;
        _reader = new StreamReader(pipe);
        _writer = new StreamWriter(pipe) { AutoFlush = true, NewLine = "\n" };
    }

    /// <summary>The switch, or null with why it could not connect.</summary>
    public static (TracingSwitch? Switch, string? Problem) Connect(string pipeName)
    {
        var pipe = new NamedPipeClientStream(".", pipeName, PipeDirection.InOut, PipeOptions.CurrentUserOnly);
        try
        {
            pipe.Connect((int)ExitHandshake.ConnectTimeout.TotalMilliseconds);
            return (new TracingSwitch(pipe), null);
        }
        catch (Exception ex) when (ex is TimeoutException or IOException or UnauthorizedAccessException)
        {
            pipe.Dispose();
            return (null, $"could not reach the recorder on '{pipeName}': {ex.Message}");
        }
    }

    /// <summary>Asks for tracing on or off; null once the recorder confirmed, otherwise why not.</summary>
    public string? Set(bool traced) =>
        Ask(traced ? TracingCostHandshake.AskTraced : TracingCostHandshake.AskUntraced, traced ? TracingCostHandshake.Traced : TracingCostHandshake.Untraced);

    /// <summary>Tells the recorder the blocks are over (it stops its scratch sessions).</summary>
    public void Done() => Ask(TracingCostHandshake.Done, TracingCostHandshake.Done);

    private string? Ask(string question, string expected)
    {
        try
        {
            _writer.WriteLine(question);
            var answer = _reader.ReadLineAsync();
            if (!answer.Wait(TracingCostHandshake.AnswerTimeout)) return $"the recorder did not answer '{question}' within {TracingCostHandshake.AnswerTimeout.TotalSeconds:F0} s";
            return answer.Result == expected ? null : $"the recorder answered '{answer.Result ?? "(closed the pipe)"}' to '{question}'";
        }
        catch (Exception ex) when (ex is IOException or ObjectDisposedException or AggregateException)
        {
            return $"the tracing-cost pipe broke: {(ex as AggregateException)?.InnerException?.Message ?? ex.Message}";
        }
    }

    public void Dispose()
    {
        _writer.Dispose();
        _reader.Dispose();
        _pipe.Dispose();
    }
}
