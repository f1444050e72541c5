// .NET Framework (net472) only: the few .NET Core BCL members this code base calls, as C# 14 extension members, so
// the shared source reads the same on both targets. Each does what its .NET 10 namesake does for the arguments used
// here; anything else (a culture-sensitive comparison where .NET 10 would honour it) throws rather than guess.
using System.Security.Cryptography;

namespace EtwSerializerProfiler.Compat;

internal static class StringShims
{
    extension(string s)
    {
        public bool Contains(char c) => s.IndexOf(c) >= 0;

        public bool Contains(char c, StringComparison comparison) => s.IndexOf(c.ToString(), comparison) >= 0;

        public bool Contains(string value, StringComparison comparison) => s.IndexOf(value, comparison) >= 0;

        public int IndexOf(char c, StringComparison comparison) => s.IndexOf(c.ToString(), comparison);

        public bool StartsWith(char c) => s.Length > 0 && s[0] == c;

        public bool EndsWith(char c) => s.Length > 0 && s[s.Length - 1] == c;

        public string Replace(string oldValue, string? newValue, StringComparison comparison) =>
            comparison == StringComparison.Ordinal
                ? s.Replace(oldValue, newValue)
                : throw new NotSupportedException($"Replace with {comparison} is not shimmed on .NET Framework");

        public string[] Split(char separator, StringSplitOptions options = StringSplitOptions.None) => Split(s, [separator.ToString()], options);

        public string[] Split(string separator, StringSplitOptions options = StringSplitOptions.None) => Split(s, [separator], options);

        public static string Join(char separator, IEnumerable<string?> values) => string.Join(separator.ToString(), values);

        public static string Join(char separator, params string?[] values) => string.Join(separator.ToString(), values);
    }

    extension(StringSplitOptions)
    {
        /// <summary>.NET 5's TrimEntries (2): trims each part; only <see cref="Split(string, string[], StringSplitOptions)"/> knows it.</summary>
        public static StringSplitOptions TrimEntries => (StringSplitOptions)2;
    }

    private static string[] Split(string s, string[] separators, StringSplitOptions options)
    {
        var trim = (options & StringSplitOptions.TrimEntries) != 0;
        var parts = s.Split(separators, StringSplitOptions.None);
        IEnumerable<string> result = trim ? parts.Select(p => p.Trim()) : parts;
        if ((options & StringSplitOptions.RemoveEmptyEntries) != 0) result = result.Where(p => p.Length > 0);
        return result.ToArray();
    }
}

internal static class EnumShims
{
    extension(Enum)
    {
        public static bool IsDefined<TEnum>(TEnum value) where TEnum : struct, Enum => Enum.IsDefined(typeof(TEnum), value);

        public static string[] GetNames<TEnum>() where TEnum : struct, Enum => Enum.GetNames(typeof(TEnum));

        public static TEnum[] GetValues<TEnum>() where TEnum : struct, Enum => (TEnum[])Enum.GetValues(typeof(TEnum));
    }
}

internal static class LinqShims
{
    extension<T>(IEnumerable<T> source)
    {
        public IOrderedEnumerable<T> Order() => source.OrderBy(x => x);

        public IOrderedEnumerable<T> Order(IComparer<T> comparer) => source.OrderBy(x => x, comparer);
    }
}

internal static class IoShims
{
    extension(File)
    {
        public static void Move(string source, string destination, bool overwrite)
        {
            if (overwrite && File.Exists(destination)) File.Delete(destination);
            File.Move(source, destination);
        }
    }
}

internal static class CryptoShims
{
    extension(SHA1)
    {
#pragma warning disable CA5350 // SHA1 is what the EventSource naming scheme specifies, not a security use.
        public static byte[] HashData(byte[] source)
        {
            using var sha = SHA1.Create();
            return sha.ComputeHash(source);
        }
#pragma warning restore CA5350
    }
}

internal static class EnvironmentShims
{
    extension(Environment)
    {
        public static int ProcessId
        {
            get
            {
                using var self = System.Diagnostics.Process.GetCurrentProcess();
                return self.Id;
            }
        }
    }
}

internal static class CollectionShims
{
    extension<TKey, TValue>(KeyValuePair<TKey, TValue> pair)
    {
        public void Deconstruct(out TKey key, out TValue value)
        {
            key = pair.Key;
            value = pair.Value;
        }
    }

    extension<TKey, TValue>(IEnumerable<KeyValuePair<TKey, TValue>> source) where TKey : notnull
    {
        public Dictionary<TKey, TValue> ToDictionary() => source.ToDictionary(p => p.Key, p => p.Value);
    }

    extension<T>(IEnumerable<T> source)
    {
        public IEnumerable<T> DistinctBy<TKey>(Func<T, TKey> key)
        {
            var seen = new HashSet<TKey>();
            foreach (var item in source)
                if (seen.Add(key(item))) yield return item;
        }
    }
}

internal static class ArgumentShims
{
    extension(ArgumentNullException)
    {
        public static void ThrowIfNull([System.Diagnostics.CodeAnalysis.NotNull] object? argument, [System.Runtime.CompilerServices.CallerArgumentExpression(nameof(argument))] string? paramName = null)
        {
            if (argument is null) throw new ArgumentNullException(paramName);
        }
    }
}

internal static class FormattingShims
{
    extension(string)
    {
        /// <summary>string.Create(provider, $"...") of .NET 6: the interpolation formatted with the provider.</summary>
        public static string Create(IFormatProvider? provider, FormattableString text) => text.ToString(provider);
    }
}
