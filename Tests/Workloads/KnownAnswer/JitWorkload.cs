using System.Reflection;
using System.Runtime.CompilerServices;

namespace EtwSerializerProfiler.Workloads;

/// <summary>
/// JIT on the run's own thread: each work item compiles one method nobody compiled before (<see cref="Body{T}"/> over
/// a value type of its own: value-type instantiations share no code) with RuntimeHelpers.PrepareMethod, never running
/// it. The value types are made before the runs, so a run's work is the JIT and what the JIT asks the runtime for;
/// System.Runtime.JitInfo.GetCompilationTime(currentThread: true) says so in-process (RuntimeWorkTruth.JitWallMs).
/// </summary>
public sealed class JitWorkload
{
    public struct K0; public struct K1; public struct K2; public struct K3; public struct K4; public struct K5; public struct K6; public struct K7;
    public struct K8; public struct K9; public struct K10; public struct K11; public struct K12; public struct K13; public struct K14; public struct K15;
    public struct P<TA, TB> { public TA A; public TB B; }

    private static readonly Type[] s_keys =
    [
        typeof(K0), typeof(K1), typeof(K2), typeof(K3), typeof(K4), typeof(K5), typeof(K6), typeof(K7),
        typeof(K8), typeof(K9), typeof(K10), typeof(K11), typeof(K12), typeof(K13), typeof(K14), typeof(K15),
    ];

    private readonly Queue<RuntimeMethodHandle> _methods = new();
    private readonly List<RuntimeMethodHandle> _compiled = [];

    /// <summary>Pairs P&lt;Ki,Kj&gt; then triples P&lt;P&lt;Ki,Kj&gt;,Kk&gt;: 4,352 value types, each a method to compile.</summary>
    public JitWorkload()
    {
        var body = typeof(JitWorkload).GetMethod(nameof(Body), BindingFlags.Static | BindingFlags.NonPublic)!;
        var pairs = new List<Type>();
        foreach (var a in s_keys)
            foreach (var b in s_keys)
                pairs.Add(typeof(P<,>).MakeGenericType(a, b));
        foreach (var t in pairs) _methods.Enqueue(body.MakeGenericMethod(t).MethodHandle);
        foreach (var p in pairs)
            foreach (var c in s_keys)
                _methods.Enqueue(body.MakeGenericMethod(typeof(P<,>).MakeGenericType(p, c)).MethodHandle);
    }

    /// <returns>The methods compiled (fewer than asked when the supply ran out).</returns>
    public int Compile(int methods)
    {
        var done = 0;
        for (; done < methods && _methods.TryDequeue(out var m); done++)
        {
            RuntimeHelpers.PrepareMethod(m);
            _compiled.Add(m);
        }
        return done;
    }

    /// <summary>The same calls on methods already compiled: everything a work item costs but the JIT.</summary>
    public int Again(int methods)
    {
        for (var i = 0; i < methods; i++) RuntimeHelpers.PrepareMethod(_compiled[i % _compiled.Count]);
        return methods;
    }

    /// <summary>Never run: compiled only. Enough IL (loops, a switch, generic collections of T) that compiling it takes a while.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Body<T>(T value, long seed) where T : struct
    {
        var list = new List<T>(4) { value };
        var map = new Dictionary<int, T> { [1] = value };
        var x = seed;
        for (var i = 0; i < 16; i++)
        {
            switch ((x ^ i) & 7)
            {
                case 0: x ^= x << 13; list.Add(value); break;
                case 1: x ^= x >> 7; map[i] = value; break;
                case 2: x ^= x << 17; x += list.Count; break;
                case 3: x += EqualityComparer<T>.Default.GetHashCode(value); break;
                case 4: x -= map.TryGetValue(i - 1, out var v) && EqualityComparer<T>.Default.Equals(v, value) ? 3 : 5; break;
                case 5: x = x * 31 + list.IndexOf(value); break;
                case 6: list.Reverse(); x ^= list.Count << 3; break;
                default: x = (x >> 3) ^ map.Count ^ value.GetHashCode(); break;
            }
        }
        var array = list.ToArray();
        Array.Sort(array, Comparer<T>.Create((a, b) => a.GetHashCode().CompareTo(b.GetHashCode())));
        foreach (var item in array) x ^= item.GetHashCode() + (x << 5);
        return x + string.Concat(typeof(T).Name, list.Count.ToString(System.Globalization.CultureInfo.InvariantCulture)).Length;
    }
}
