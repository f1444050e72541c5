using System.Buffers;
using System.Collections.ObjectModel;
using System.Diagnostics;
using System.IO.Pipes;
using System.Runtime.CompilerServices;
using System.Text;

namespace EtwSerializerProfiler.Compat;

/// <summary>.NET Framework stand-ins for the .NET Core members the benchmark calls outside its measured code.</summary>
internal static class RuntimeShims
{
    extension(RuntimeFeature)
    {
        /// <summary>.NET Framework always JIT-compiles and can always emit; the switch of that name does not exist there.</summary>
        public static bool IsDynamicCodeSupported => true;
    }

    extension(Math)
    {
        public static double Clamp(double value, double min, double max) => value < min ? min : value > max ? max : value;
    }

    extension(Stopwatch)
    {
        public static TimeSpan GetElapsedTime(long startingTimestamp, long endingTimestamp) =>
            TimeSpan.FromTicks((long)((endingTimestamp - startingTimestamp) * ((double)TimeSpan.TicksPerSecond / Stopwatch.Frequency)));
    }

    extension(Environment)
    {
        public static string? ProcessPath
        {
            get
            {
                using var self = Process.GetCurrentProcess();
                return self.MainModule?.FileName;
            }
        }
    }

    extension(PipeOptions)
    {
        /// <summary>
        /// .NET Framework clients cannot ask for it; the pipes this benchmark connects to are created by the .NET 10
        /// recorder with CurrentUserOnly, which restricts them to the current user on the server side.
        /// </summary>
        public static PipeOptions CurrentUserOnly => PipeOptions.None;
    }

    extension(NamedPipeClientStream pipe)
    {
        public void Connect(TimeSpan timeout) => pipe.Connect((int)timeout.TotalMilliseconds);
    }

    extension(StreamReader reader)
    {
        /// <summary>.NET 7's cancellable ReadLineAsync: the read itself cannot be cancelled here, only abandoned.</summary>
        public ValueTask<string?> ReadLineAsync(CancellationToken cancel) => new(ReadLineOrCancel(reader, cancel));
    }

    private static async Task<string?> ReadLineOrCancel(StreamReader reader, CancellationToken cancel)
    {
        var read = reader.ReadLineAsync();
        var cancelled = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        using (cancel.Register(() => cancelled.TrySetResult(true)))
            if (await Task.WhenAny(read, cancelled.Task).ConfigureAwait(false) != read) throw new OperationCanceledException(cancel);
        return await read.ConfigureAwait(false);
    }

    extension(Process process)
    {
        public Task WaitForExitAsync(CancellationToken cancel = default) => Task.Run(() =>
        {
            while (!process.WaitForExit(100)) cancel.ThrowIfCancellationRequested();
        }, CancellationToken.None);
    }

    extension(ProcessStartInfo psi)
    {
        /// <summary>
        /// .NET Core's ArgumentList: a list that keeps <see cref="ProcessStartInfo.Arguments"/> in step, quoting each
        /// argument the way the C runtime (CommandLineToArgvW) splits them again.
        /// </summary>
        public Collection<string> ArgumentList => s_argumentLists.GetValue(psi, p => new ArgumentList(p));
    }

    private static readonly ConditionalWeakTable<ProcessStartInfo, ArgumentList> s_argumentLists = new();

    private sealed class ArgumentList(ProcessStartInfo psi) : Collection<string>
    {
        protected override void InsertItem(int index, string item) { base.InsertItem(index, item); Update(); }

        protected override void SetItem(int index, string item) { base.SetItem(index, item); Update(); }

        protected override void RemoveItem(int index) { base.RemoveItem(index); Update(); }

        protected override void ClearItems() { base.ClearItems(); Update(); }

        private void Update() => psi.Arguments = string.Join(" ", this.Select(Quote));

        internal static string Quote(string argument)
        {
            if (argument.Length > 0 && argument.IndexOfAny([' ', '\t', '"']) < 0) return argument;
            var sb = new StringBuilder("\"");
            var backslashes = 0;
            foreach (var c in argument)
            {
                if (c == '\\') { backslashes++; continue; }
                // Backslashes are literal unless they precede a quote: then each is doubled and the quote escaped.
                sb.Append('\\', c == '"' ? backslashes * 2 + 1 : backslashes).Append(c);
                backslashes = 0;
            }
            return sb.Append('\\', backslashes * 2).Append('"').ToString();
        }
    }
}

/// <summary>.NET Core span overloads used by the hand-written serializers and the data factory.</summary>
internal static class SpanShims
{
    extension(BitConverter)
    {
        public static int SingleToInt32Bits(float value) => BitConverter.ToInt32(BitConverter.GetBytes(value), 0);
    }

    extension(decimal)
    {
        public static void GetBits(decimal d, Span<int> destination) => decimal.GetBits(d).CopyTo(destination);

        public static bool IsNegative(decimal d) => (decimal.GetBits(d)[3] & int.MinValue) != 0;
    }

    extension(decimal d)
    {
        public byte Scale => (byte)((decimal.GetBits(d)[3] >> 16) & 0xFF);
    }

    extension(Guid guid)
    {
        public bool TryWriteBytes(Span<byte> destination)
        {
            if (destination.Length < 16) return false;
            guid.ToByteArray().CopyTo(destination);
            return true;
        }
    }

    extension(Type type)
    {
        /// <summary>A single-dimensional array with a zero lower bound (T[]), not T[*] or T[,].</summary>
        public bool IsSZArray => type.IsArray && type == type.GetElementType()!.MakeArrayType();
    }

    extension(Stream stream)
    {
        public void ReadExactly(Span<byte> buffer)
        {
            var array = new byte[buffer.Length];
            for (var read = 0; read < array.Length;)
            {
                var n = stream.Read(array, read, array.Length - read);
                if (n == 0) throw new EndOfStreamException();
                read += n;
            }
            array.CopyTo(buffer);
        }
    }

    extension(BinaryWriter writer)
    {
        public void Write(ReadOnlySpan<byte> buffer) => writer.Write(buffer.ToArray());
    }

    extension(string)
    {
        public static string Create<TState>(int length, TState state, SpanAction<char, TState> action)
        {
            var chars = new char[length];
            action(chars, state);
            return new string(chars);
        }
    }
}
