namespace EtwSerializerProfiler.Workloads;

/// <summary>
/// Type loading on the run's own thread: each work item is one Type.MakeGenericType of a type nobody loaded before
/// (<see cref="Loaded{TA,TB}"/> over a pair of type arguments from the core library not used before), which the
/// runtime builds then and there (its method table, vtable and interfaces). Only the argument list is made before
/// the runs; the truth is the thread CPU clock around the calls.
/// </summary>
public sealed class TypeLoadWorkload
{
    public interface IShape<T> { T Get(); }

    /// <summary>Fields, interfaces and virtual methods: work for the type loader on every instantiation.</summary>
    public class Loaded<TA, TB> : IShape<TA>, IEquatable<Loaded<TA, TB>>, IComparable<Loaded<TA, TB>>
    {
        public TA? A;
        public TB? B;
        public List<TA>? As;
        public Dictionary<int, TB>? Map;
        public TA Get() => A!;
        public bool Equals(Loaded<TA, TB>? other) => other is not null && EqualityComparer<TA>.Default.Equals(A, other.A);
        public int CompareTo(Loaded<TA, TB>? other) => 0;
        public virtual TA First() => A!;
        public virtual TB Second() => B!;
        public virtual int Count() => As?.Count ?? 0;
        public virtual bool Has(int key) => Map?.ContainsKey(key) ?? false;
        public virtual TB? Lookup(int key) => Map is not null && Map.TryGetValue(key, out var b) ? b : default;
        public virtual TA? V0() => default; public virtual TB? V1() => default; public virtual TA? V2() => default; public virtual TB? V3() => default;
        public virtual TA? V4() => default; public virtual TB? V5() => default; public virtual TA? V6() => default; public virtual TB? V7() => default;
        public virtual TA? V8() => default; public virtual TB? V9() => default; public virtual TA? V10() => default; public virtual TB? V11() => default;
        public virtual TA? V12() => default; public virtual TB? V13() => default; public virtual TA? V14() => default; public virtual TB? V15() => default;
        public override bool Equals(object? obj) => obj is Loaded<TA, TB> other && Equals(other);
        public override int GetHashCode() => 0;
    }

    private readonly Type[] _arguments;
    private int _next;

    /// <summary>Public classes and structs of the core library that can be type arguments (about 1,000: a million pairs).</summary>
    public TypeLoadWorkload()
    {
        _arguments = [.. typeof(object).Assembly.GetExportedTypes()
            .Where(t => !t.IsGenericTypeDefinition && !t.ContainsGenericParameters && !t.IsByRefLike && !t.IsPointer && t != typeof(void)
                && !(t.IsAbstract && t.IsSealed) && (t.IsClass || t.IsValueType) && !t.IsInterface)
            .OrderBy(t => t.FullName, StringComparer.Ordinal)];
    }

    /// <returns>The types loaded.</returns>
    public int Load(int types)
    {
        var n = _arguments.Length;
        for (var i = 0; i < types; i++, _next++) _ = Make(_next);
        return types;
    }

    /// <summary>The same calls on types already loaded: everything a work item costs but the type loader.</summary>
    public int Again(int types)
    {
        for (var i = 0; i < types; i++) _ = Make(i % _next);
        return types;
    }

    private Type Make(int item)
    {
        var n = _arguments.Length;
        return typeof(Loaded<,>).MakeGenericType(_arguments[item % n], _arguments[(item / n + item) % n]);
    }
}
