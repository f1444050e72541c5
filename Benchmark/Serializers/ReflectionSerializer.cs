using System.Collections;
using System.Collections.Concurrent;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Text;

namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>
/// A deliberately naive, reflection-driven binary serializer (the baseline the others are compared against):
/// walks every instance field (public and private, so auto-property backing fields and BookShelf.Secret are
/// included) with FieldInfo.GetValue/SetValue, and creates every object, list and dictionary with
/// Activator.CreateInstance(Type). No compiled delegates and no emitted code, so reflection and activation
/// costs show up in traces under System.Reflection / System.Activator frames.
/// Wire format (BinaryWriter): the declared type drives everything; reference types get a presence byte,
/// Nullable&lt;T&gt; a HasValue byte, collections an Int32 count, DateTime an Int64 of ticks | kind &lt;&lt; 62.
/// No object identity: shared references are written once per use.
/// </summary>
public sealed class ReflectionSerializer : Serializer
{
    private const BindingFlags DeclaredInstanceFields = BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.DeclaredOnly;
    private const int MaxDepth = 64;
    private static readonly UTF8Encoding s_utf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    // Only the field lists are cached (GetFields is not part of what this serializer demonstrates);
    // every value still goes through FieldInfo.GetValue / SetValue.
    private readonly ConcurrentDictionary<Type, FieldInfo[]> _fields = new();

    public override string Name => "Reflection";

    public override string Format => "Binary (reflection)";

    public override Capabilities Capabilities => Capabilities.PrivateMembers | Capabilities.Binary | Capabilities.NoRuntimeCodegen;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override void Serialize(object graph, Stream stream)
    {
        using var writer = new BinaryWriter(stream, s_utf8, leaveOpen: true);
        WriteValue(writer, graph.GetType(), graph, 0);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override object Deserialize(Type type, Stream stream)
    {
        using var reader = new BinaryReader(stream, s_utf8, leaveOpen: true);
        return ReadValue(reader, type, 0) ?? throw new InvalidDataException("Reflection serializer read a null root");
    }

    private void WriteValue(BinaryWriter w, Type type, object? value, int depth)
    {
        if (depth > MaxDepth) throw new NotSupportedException($"object graph deeper than {MaxDepth} (cycles are not supported)");
        if (type.IsValueType)
        {
            if (Nullable.GetUnderlyingType(type) is { } underlying)
            {
                w.Write(value is not null);
                if (value is not null) WriteStruct(w, underlying, value, depth);
            }
            else
            {
                WriteStruct(w, type, value!, depth);
            }
            return;
        }

        w.Write(value is not null);
        if (value is null) return;
        if (value.GetType() != type) throw new NotSupportedException($"polymorphic value: {value.GetType().Name} in a {type.Name} slot");

        if (type == typeof(string))
        {
            w.Write((string)value);
        }
        else if (type == typeof(byte[]))
        {
            var bytes = (byte[])value;
            w.Write(bytes.Length);
            w.Write(bytes);
        }
        else if (type.IsSZArray)
        {
            var array = (Array)value;
            var element = type.GetElementType()!;
            w.Write(array.Length);
            foreach (var item in array) WriteValue(w, element, item, depth + 1);
        }
        else if (IsGeneric(type, typeof(List<>)))
        {
            var list = (IList)value;
            var element = type.GetGenericArguments()[0];
            w.Write(list.Count);
            foreach (var item in list) WriteValue(w, element, item, depth + 1);
        }
        else if (IsGeneric(type, typeof(Dictionary<,>)))
        {
            var dictionary = (IDictionary)value;
            var args = type.GetGenericArguments();
            w.Write(dictionary.Count);
            var e = dictionary.GetEnumerator();
            while (e.MoveNext())
            {
                WriteValue(w, args[0], e.Key, depth + 1);
                WriteValue(w, args[1], e.Value, depth + 1);
            }
        }
        else
        {
            WriteFields(w, type, value, depth);
        }
    }

    private void WriteStruct(BinaryWriter w, Type type, object value, int depth)
    {
        switch (Type.GetTypeCode(type))
        {
            case TypeCode.Boolean: w.Write((bool)value); return;
            case TypeCode.Byte: w.Write((byte)value); return;
            case TypeCode.SByte: w.Write((sbyte)value); return;
            case TypeCode.Int16: w.Write((short)value); return;
            case TypeCode.UInt16: w.Write((ushort)value); return;
            case TypeCode.Char: w.Write((ushort)(char)value); return;
            case TypeCode.Int32: w.Write((int)value); return;
            case TypeCode.UInt32: w.Write((uint)value); return;
            case TypeCode.Int64: w.Write((long)value); return;
            case TypeCode.UInt64: w.Write((ulong)value); return;
            case TypeCode.Single: w.Write((float)value); return;
            case TypeCode.Double: w.Write((double)value); return;
            case TypeCode.Decimal: w.Write((decimal)value); return;
            case TypeCode.DateTime:
                var dt = (DateTime)value;
                w.Write((long)((ulong)dt.Ticks | ((ulong)dt.Kind << 62)));
                return;
        }
        if (type == typeof(Guid))
        {
            Span<byte> bytes = stackalloc byte[16];
            ((Guid)value).TryWriteBytes(bytes);
            w.Write(bytes);
            return;
        }
        if (type.IsPrimitive || type.IsPointer) throw new NotSupportedException($"type {type.Name} is not supported");
        WriteFields(w, type, value, depth); // a user struct: its fields, like a class without the presence byte
    }

    private void WriteFields(BinaryWriter w, Type type, object value, int depth)
    {
        foreach (var field in Fields(type)) WriteValue(w, field.FieldType, field.GetValue(value), depth + 1);
    }

    private object? ReadValue(BinaryReader r, Type type, int depth)
    {
        if (depth > MaxDepth) throw new InvalidDataException($"object graph deeper than {MaxDepth}");
        if (type.IsValueType)
        {
            if (Nullable.GetUnderlyingType(type) is { } underlying)
            {
                return r.ReadBoolean() ? ReadStruct(r, underlying, depth) : null;
            }
            return ReadStruct(r, type, depth);
        }

        if (!r.ReadBoolean()) return null;

        if (type == typeof(string)) return r.ReadString();
        if (type == typeof(byte[]))
        {
            var length = ReadCount(r);
            var bytes = r.ReadBytes(length);
            return bytes.Length == length ? bytes : throw new EndOfStreamException();
        }
        if (type.IsSZArray)
        {
            var element = type.GetElementType()!;
            var array = Array.CreateInstance(element, ReadCount(r));
            for (var i = 0; i < array.Length; i++) array.SetValue(ReadValue(r, element, depth + 1), i);
            return array;
        }
        if (IsGeneric(type, typeof(List<>)))
        {
            var element = type.GetGenericArguments()[0];
            var list = (IList)Activator.CreateInstance(type)!;
            var count = ReadCount(r);
            for (var i = 0; i < count; i++) list.Add(ReadValue(r, element, depth + 1));
            return list;
        }
        if (IsGeneric(type, typeof(Dictionary<,>)))
        {
            var args = type.GetGenericArguments();
            var dictionary = (IDictionary)Activator.CreateInstance(type)!;
            var count = ReadCount(r);
            for (var i = 0; i < count; i++)
            {
                var key = ReadValue(r, args[0], depth + 1) ?? throw new InvalidDataException("null dictionary key");
                dictionary.Add(key, ReadValue(r, args[1], depth + 1));
            }
            return dictionary;
        }
        return ReadFields(r, type, Activator.CreateInstance(type)!, depth);
    }

    private object ReadStruct(BinaryReader r, Type type, int depth)
    {
        switch (Type.GetTypeCode(type))
        {
            case TypeCode.Boolean: return r.ReadBoolean();
            case TypeCode.Byte: return r.ReadByte();
            case TypeCode.SByte: return r.ReadSByte();
            case TypeCode.Int16: return r.ReadInt16();
            case TypeCode.UInt16: return r.ReadUInt16();
            case TypeCode.Char: return (char)r.ReadUInt16();
            case TypeCode.Int32: return r.ReadInt32();
            case TypeCode.UInt32: return r.ReadUInt32();
            case TypeCode.Int64: return r.ReadInt64();
            case TypeCode.UInt64: return r.ReadUInt64();
            case TypeCode.Single: return r.ReadSingle();
            case TypeCode.Double: return r.ReadDouble();
            case TypeCode.Decimal: return r.ReadDecimal();
            case TypeCode.DateTime:
                var packed = r.ReadInt64();
                return new DateTime(packed & 0x3FFF_FFFF_FFFF_FFFF, (DateTimeKind)((ulong)packed >> 62));
        }
        if (type == typeof(Guid))
        {
            Span<byte> bytes = stackalloc byte[16];
            r.BaseStream.ReadExactly(bytes);
            return FromSpan.Guid(bytes);
        }
        if (type.IsPrimitive || type.IsPointer) throw new NotSupportedException($"type {type.Name} is not supported");
        return ReadFields(r, type, Activator.CreateInstance(type)!, depth); // boxed struct: SetValue updates the box
    }

    private object ReadFields(BinaryReader r, Type type, object target, int depth)
    {
        foreach (var field in Fields(type)) field.SetValue(target, ReadValue(r, field.FieldType, depth + 1));
        return target;
    }

    /// <summary>Instance fields of the type and its base classes, base first, in declaration (metadata) order.</summary>
    private FieldInfo[] Fields(Type type) => _fields.GetOrAdd(type, static t =>
    {
        var chain = new List<Type>();
        for (var c = t; c is not null && c != typeof(object) && c != typeof(ValueType); c = c.BaseType) chain.Add(c);
        chain.Reverse();
        return chain
            .SelectMany(c => c.GetFields(DeclaredInstanceFields).OrderBy(f => f.MetadataToken))
            .ToArray();
    });

    private static int ReadCount(BinaryReader r)
    {
        var count = r.ReadInt32();
        return count >= 0 ? count : throw new InvalidDataException($"negative count {count}");
    }

    private static bool IsGeneric(Type type, Type definition) => type.IsGenericType && type.GetGenericTypeDefinition() == definition;
}
